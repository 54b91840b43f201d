// What a fresh heap page costs on this machine, apart from any program's own work: allocates and
// writes the two blocks a fetched object holds (the object, 216 bytes, and its ten values, 272)
// for `count` objects, frees them, and does it again; prints the page faults and the CPU time
// the kernel spent on them for each round. With glibc's default settings the freed heap goes
// back to the system, so every round faults its pages in again, as every fetch does.
//
//     swiftc -O Benchmarks/PageFaults/main.swift -o page-faults && ./page-faults 200000
import Foundation

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 200_000

struct Usage {
    var user: Double, system: Double, faults: Int, wall: Double

    static func now() -> Usage {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Usage(user: seconds(usage.ru_utime), system: seconds(usage.ru_stime), faults: usage.ru_minflt,
                     wall: Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9)
    }
}

for round in 0..<3 {
    let before = Usage.now()
    var blocks: [UnsafeMutableRawPointer] = []
    blocks.reserveCapacity(count * 2)
    for _ in 0..<count {
        for size in [216, 272] {
            guard let block = malloc(size) else {
                print("out of memory after \(blocks.count) blocks")
                exit(1)
            }
            memset(block, 1, size)
            blocks.append(block)
        }
    }
    for block in blocks { free(block) }
    blocks = []
    let after = Usage.now()
    let faults = after.faults - before.faults
    let system = after.system - before.system
    print(String(format: "round %d: %d objects, %d page faults (%.0f bytes of fresh pages an object), system %.3f s (%.2f µs a fault), user %.3f s, wall %.3f s",
                 round, count, faults, Double(faults) * 4096 / Double(count), system, faults > 0 ? system / Double(faults) * 1e6 : 0,
                 after.user - before.user, after.wall - before.wall))
}
