// Tests that use MockTransport also use the core's types; `import NetworkLayerTesting` brings them (and
// Foundation's) along.
@_exported public import NetworkLayerCore
