import NetworkLayer

// The README's quick start, end to end. Without arguments it runs against an in-memory users API;
// with `--base-url URL` the same routes go to a real server.

let options = DemoOptions.current
// The routes say production; an environment sends them to the in-memory API or to --base-url instead. Against a
// real server, the platform's recommended transport (CurlTransport on Linux), as Network.default uses.
let environment = APIEnvironment(
    options.usesRealServer ? "--base-url" : "in-memory", baseURLs: [UserRoute.production: options.baseURL])
let network = (options.usesRealServer ? Network.default : Network(transport: InMemoryUsersAPI()))
    .withEnvironment(environment)

let target = options.usesRealServer ? options.baseURL.absoluteString : "an in-memory users API"
print("NetworkLayer demo against \(target)\n")

do {
    // 1. A typed value, inferred from the declaration.
    let user: User = try await network.send(UserRoute.getUser(id: 1))
    show("let user: User = send(.getUser(id: 1))", user)

    // 2. The type named at the call site.
    let same = try await network.send(UserRoute.getUser(id: 1), as: User.self)
    show("send(.getUser(id: 1), as: User.self)", same)

    // 3. A Result instead of a throw.
    let result: Result<User, NetworkError> = await network.send(UserRoute.getUser(id: 2))
    show("Result<User, NetworkError>", result.map(\.description))

    // 4. The value with status and headers.
    let created: Response<User> = try await network.send(
        UserRoute.createUser(name: "Carol", email: "carol@example.com"))
    show("Response<User> for .createUser", "HTTP \(created.statusCode), \(created.value)")

    // 5. No body expected: only the status is checked.
    try await network.send(UserRoute.deleteUser(id: created.value.id))
    show("send(.deleteUser(id: \(created.value.id)))", "done")

    // 6. The raw bytes.
    let raw: Data = try await network.send(UserRoute.listUsers)
    show("let raw: Data = send(.listUsers)", "\(raw.count) bytes")

    // 7. A completion handler, called exactly once.
    await network.send(UserRoute.getUser(id: 2)) { (result: Result<User, NetworkError>) in
        show("completion handler", result.map(\.description))
    }.value

    // 8. A typed error that keeps the status and the body.
    do {
        let _: User = try await network.send(UserRoute.getUser(id: 99))
    } catch {
        show("send(.getUser(id: 99)) threw", error)
        print(
            "  statusCode: \(error.statusCode.map(String.init) ?? "none"), "
                + "body: \(error.responseBody.map { String(decoding: $0, as: UTF8.self) } ?? "none")")
    }
} catch {
    print("error: \(error)")
    exit(1)
}

/// Prints one line of the demo: what was called, then what came back.
func show(_ call: String, _ outcome: Any) {
    let padding = String(repeating: " ", count: max(1, 48 - call.count))
    print(call + padding + "→ \(outcome)")
}
