// Links NetCore alone, so `.ci/run` can check with `ldd` that NetCore pulls in neither
// FoundationNetworking nor libcurl. It also exercises the module end to end: build, validate,
// render as curl.
import NetCore

let request = try NetworkRequest(
    url: "https://example.com/search", httpMethod: .post,
    headers: [.header(key: "Authorization", value: "Bearer secret")],
    query: [.query(key: "q", value: "C++ & Swift")], jsonBody: ["page": 1])
print(request.curl)
