// NetTransport: the pluggable `Transport`, `URLSessionTransport`, `StubTransport` and the
// `NetworkSession` layer arrive with issue 3. The module exists now so that the product
// map in README.md is stable and `import Net` already works.
import NetCore
