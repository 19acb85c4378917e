// `import GronaMock` brings the JSON and HTTP layers too, as swift-nio's umbrella module does, so that a test
// target or the command line needs one import to use the engine and the types it speaks in.
@_exported import GronaHTTP
@_exported import GronaJSON
