// Tests that use MockTransport also use NetworkLayer's types; `import NetworkLayerTesting` brings them (and
// Foundation's) along.
@_exported public import NetworkLayer
