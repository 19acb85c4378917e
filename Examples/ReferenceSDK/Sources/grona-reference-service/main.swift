import Foundation
import GronaReferenceHTTP
import GronaReferenceSDK
import GronaReferenceService

/// `grona-reference-service --port P [--host H] [--mutation NAME]`: the reference SDK's conformance test service.

let usage = """
    grona-reference-service: the reference SDK's conformance test service (docs/conformance/service-protocol.md)

    usage: grona-reference-service --port P [--host 127.0.0.1] [--mutation NAME]
           grona-reference-service --list-mutations [--verbose]

      --port P           the port to listen on (0: any free port; the chosen one is printed)
      --host H           the IPv4 address to bind (default 127.0.0.1, loopback only)
      --mutation NAME    break one behaviour of the SDK on purpose (see --list-mutations)
      --list-mutations   print the mutation names, one a line (--verbose: with what each breaks)
      --help             this text

    Once ready it prints "listening on http://HOST:PORT".
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("grona-reference-service: \(message)\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
var port: UInt16?
var host = "127.0.0.1"
var mutation: Mutation?
var listMutations = false
var verbose = false
while let argument = arguments.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--list-mutations": listMutations = true
    case "--verbose": verbose = true
    case "--port":
        guard let value = arguments.popFirst(), let number = UInt16(value) else {
            fail("--port needs a port number from 0 to 65535")
        }
        port = number
    case "--host":
        guard let value = arguments.popFirst() else { fail("--host needs an IPv4 address") }
        host = value
    case "--mutation":
        guard let value = arguments.popFirst() else { fail("--mutation needs a name (see --list-mutations)") }
        guard let named = Mutation(rawValue: value) else {
            fail("unknown mutation \"\(value)\"; --list-mutations prints the names")
        }
        mutation = named
    default:
        fail("unknown argument \"\(argument)\"\n\n\(usage)")
    }
}

if listMutations {
    for mutation in Mutation.allCases {
        print(verbose ? "\(mutation.rawValue)\t\(mutation.summary)" : mutation.rawValue)
    }
    exit(0)
}
guard let port else { fail("--port is required\n\n\(usage)") }

let service = ReferenceService(mutation: mutation, onShutdown: { exit(0) })
let server: HTTPServer
do {
    server = try HTTPServer(host: host, port: port, handler: service.handle)
} catch {
    fail("cannot listen on \(host):\(port): \(error)")
}
server.start()
if let mutation { FileHandle.standardError.write(Data("mutation: \(mutation.rawValue)\n".utf8)) }
// Written straight to the descriptor, not through stdio's buffer: the harness waits for this line on a pipe.
FileHandle.standardOutput.write(Data("listening on http://\(host):\(server.port)\n".utf8))
while true { sleep(3600) }
