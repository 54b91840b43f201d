import Foundation
import LimelightData
import Testing
@testable import LimelightSearch

/// What travels over limelightd's search socket: requests and replies survive the trip whole,
/// and anything that is not one is refused rather than guessed at.
struct SearchWireFormatTests {
    @Test func requestsAndRepliesRoundTrip() throws {
        var options = SearchService.Options(query: "tomato \"chopped onion\" name:salsa é\t\n")
        options.language = "french"
        options.limit = 7
        options.offset = 3
        options.sort = "servings:desc"
        let request = SearchRequest(options: options, count: false, json: true)
        let decoded = try #require(SearchWireFormat.decodeRequest(SearchWireFormat.encode(request, indexPath: "/data/index")))
        #expect(decoded.request == request)
        #expect(decoded.indexPath == "/data/index")
        let plain = SearchRequest(options: SearchService.Options(query: "lime"), count: true)
        #expect(SearchWireFormat.decodeRequest(SearchWireFormat.encode(plain, indexPath: "/i"))?.request == plain)

        for reply in [SearchReply(output: "Salsa\n  uri: x\0y\n", errorOutput: "dropped x: gone\n"),
                      SearchReply(), SearchReply(errorOutput: "no matches\n"), SearchReply(failure: "no indexed property 'colour'")] {
            #expect(SearchWireFormat.decodeReply(SearchWireFormat.encode(reply)) == reply)
        }
    }

    /// Requests to change the index share the socket: neither kind is taken for the other.
    @Test func indexRequestsRoundTripAndAreNoSearches() throws {
        let request = IndexRequest.removeStore("0C1F4A2E-55AA-4B61-9F00-0123456789AB")
        let bytes = request.encoded(indexPath: "/data/index")
        let decoded = try #require(IndexRequest.decode(bytes))
        #expect(decoded.request == request && decoded.indexPath == "/data/index")
        #expect(SearchWireFormat.decodeRequest(bytes) == nil)
        #expect(IndexRequest.decode(SearchWireFormat.encode(SearchRequest(options: SearchService.Options(query: "x")), indexPath: "/i")) == nil)
        #expect(IndexRequest.decode(Array(bytes.dropLast())) == nil)
        for reply in [IndexRequest.Reply.done("removed 3 document(s)"), .failed("why\nnot"), .declined("")] {
            #expect(IndexRequest.decodeReply(IndexRequest.encode(reply)) == reply)
        }
        #expect(IndexRequest.decodeReply(Array("limelight-index-reply 1 7\nx".utf8)) == nil)
        #expect(IndexRequest.decodeReply(SearchWireFormat.encode(SearchReply(output: "x"))) == nil)
        guard case .declined? = IndexRequest.decodeReply(SearchWireFormat.encodeDeclined("not a search request")) else {
            Issue.record("an earlier daemon's refusal is not read as declined")
            return
        }
    }

    @Test func malformedRequestsAndRepliesAreRefused() {
        let good = SearchWireFormat.encode(SearchRequest(options: SearchService.Options(query: "lime")), indexPath: "/i")
        #expect(SearchWireFormat.decodeRequest(Array(good.dropLast())) == nil)
        #expect(SearchWireFormat.decodeRequest(Array("limelight-search 2\0index\0/i\0query\0x\0limit\01\0offset\00\0".utf8)) == nil)
        #expect(SearchWireFormat.decodeRequest(Array("limelight-search 1\0index\0/i\0query\0x\0limit\0many\0offset\00\0".utf8)) == nil)
        #expect(SearchWireFormat.decodeRequest(Array("limelight-search 1\0query\0x\0limit\01\0offset\00\0".utf8)) == nil)
        #expect(SearchWireFormat.decodeRequest([]) == nil)

        let reply = SearchWireFormat.encode(SearchReply(output: "hit\n", errorOutput: "", failure: nil))
        #expect(SearchWireFormat.decodeReply(Array(reply.dropLast())) == nil)
        #expect(SearchWireFormat.decodeReply(reply + [0x41]) == nil)
        #expect(SearchWireFormat.decodeReply(Array("limelight-reply 1 0 -1 0 0\n".utf8)) == nil)
        #expect(SearchWireFormat.decodeReply(Array("HTTP/1.1 200 OK\n".utf8)) == nil)
        #expect(SearchWireFormat.decodeReply([]) == nil)
        // A declined request is no reply: the command searches by itself.
        #expect(SearchWireFormat.decodeReply(SearchWireFormat.encodeDeclined("another index")) == nil)
        #expect(SearchWireFormat.decodeReply(Array("limelight-reply 1 2 0 0 0\n".utf8)) == nil)
    }
}
