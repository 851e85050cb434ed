import NetworkLayer

// Enqueues POSTs into an OfflineQueue at the directory given, forever, printing "queued N" after each is on disk.
// The offline-queue crash test kills it with SIGKILL at random moments and checks that every N it printed is queued.

struct Offline: Transport {
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        throw URLError(.notConnectedToInternet)
    }
}

struct Post: URLRequestProtocol {
    let number: Int
    var url: URL { URL(string: "https://api.example.com/notes")! }
    var method: HTTPMethod { .post }
    var body: Data? { Data(#"{"n":\#(number)}"#.utf8) }
    var options: RequestOptions {
        var options = RequestOptions()
        options.queuesWhenOffline = true
        return options
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let first = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: networklayer-journal-child DIRECTORY FIRST-NUMBER\n".utf8))
    exit(2)
}
let queue = try OfflineQueue(
    directory: URL(fileURLWithPath: arguments[1]), replayingThrough: Network(transport: Offline()))
let network = Network(transport: Offline(), middleware: [queue])
var number = first
while true {
    do {
        try await network.send(Post(number: number))
    } catch .queued {
        FileHandle.standardOutput.write(Data("queued \(number)\n".utf8))
    } catch {
        FileHandle.standardOutput.write(Data("error \(error)\n".utf8))
    }
    number += 1
}
