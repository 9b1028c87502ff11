// The umbrella module: `import Net` gives every layer at once.
@_exported import NetCore
@_exported import NetMultipart
@_exported import NetReachability
@_exported import NetTransport
