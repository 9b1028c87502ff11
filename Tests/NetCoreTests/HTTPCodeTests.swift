import Foundation
import NetCore
import Testing

@Suite("HTTPCode and HTTPCodes")
struct HTTPCodeTests {
    @Test("Codes read like integers and know their class and phrase")
    func codeBasics() {
        let code: HTTPCode = 404
        #expect(code == 404)
        #expect(404 == code)
        #expect(code.kind == .clientError)
        #expect(code.description == "404 Not Found")
        #expect(HTTPCode(299).kind == .success)
        #expect(HTTPCode(99).kind == nil)
        #expect(HTTPCode(600).kind == nil)
        #expect(HTTPCode(799).description == "799")
        #expect(400..<500 ~= code)
        #expect(HTTPCode.ok < HTTPCode.created)
    }

    @Test("Predefined classes hold exactly their hundred", arguments: [
        (HTTPCodes.informational, 100), (.success, 200), (.redirection, 300), (.clientError, 400), (.serverError, 500),
    ])
    func classes(codes: HTTPCodes, start: Int) {
        #expect(!codes.contains(start - 1))
        #expect(codes.contains(start))
        #expect(codes.contains(start + 99))
        #expect(!codes.contains(start + 100))
    }

    @Test("Built from half-open and closed ranges, lists and unions")
    func construction() {
        #expect(HTTPCodes(200..<300) == HTTPCodes(200...299))
        #expect(HTTPCodes(200..<200).isEmpty)
        let listed: HTTPCodes = [200, 201, 204]
        #expect(listed.contains(201) && !listed.contains(202))
        #expect(HTTPCodes([200, 201, 202]) == HTTPCodes(200...202))
        let union = HTTPCodes.success.union([304])
        #expect(union.contains(304) && union.contains(250) && !union.contains(303))
        #expect(union.description == "200...299, 304")
        #expect(HTTPCodes(200...250).union(HTTPCodes(251...299)) == .success)
        let cut = HTTPCodes.success.subtracting([204])
        #expect(!cut.contains(204) && cut.contains(203) && cut.contains(205))
        #expect(cut.description == "200...203, 205...299")
        #expect(HTTPCodes.success.subtracting(.success).isEmpty)
    }

    @Test("~= works in switch, if case and guard, for HTTPCode and Int")
    func patternMatching() {
        func classify(_ code: HTTPCode) -> String {
            switch code {
            case .success: "success"
            case .redirection: "redirect"
            case HTTPCodes([401, 403]): "auth"
            case .clientError: "client"
            default: "other"
            }
        }
        #expect(classify(204) == "success")
        #expect(classify(301) == "redirect")
        #expect(classify(403) == "auth")
        #expect(classify(404) == "client")
        #expect(classify(503) == "other")

        let status = 201
        guard HTTPCodes.success ~= status else {
            Issue.record("201 should be a success")
            return
        }
        if case HTTPCodes.serverError = 502 {} else { Issue.record("502 should match .serverError") }
    }

    @Test("Codes encode and decode as bare numbers")
    func codable() throws {
        let data = try JSONEncoder().encode([HTTPCode.notFound])
        #expect(String(decoding: data, as: UTF8.self) == "[404]")
        #expect(try JSONDecoder().decode([HTTPCode].self, from: data) == [404])
    }
}
