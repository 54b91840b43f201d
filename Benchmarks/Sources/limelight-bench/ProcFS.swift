import Foundation

/// What /proc says about a process and all its threads.
enum ProcFS {
    /// Context switches of every thread: each is the process waking up (voluntary) or being preempted.
    static func contextSwitches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                total += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
            }
        }
        return total
    }

    /// Resident memory in MiB (VmRSS).
    static func residentMegabytes(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first
            return kilobytes.map { $0 / 1024 }
        }
        return nil
    }

    /// User + system CPU ticks so far.
    static func cpuTicks(_ pid: Int32) -> Int {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
        guard fields.count > 12 else { return 0 }
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }
}
