import Hummingbird
import Logging
import ServiceLifecycle

/// A Hummingbird server as one service of a process's `ServiceGroup`: HTTP/1.1, idle
/// connections closed after `idleSeconds`, at most `connections` held at once (past them:
/// `503`), and where it listens logged once it does (`"\(what) on http://HOST:PORT\(path)"`,
/// which port 0 makes worth saying).
enum HTTPService {
    static func make<Routes: HTTPResponderBuilder>(_ router: Routes, at address: HTTPAddress, idleSeconds: Int64,
                     connections: ConnectionBudget = ConnectionBudget(limit: 256),
                     announcing what: String, path: String, logger: Logger) -> some Service
        where Routes.Responder.Context == BasicRequestContext {
        Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [connections.handler()], idleTimeout: .seconds(idleSeconds))),
            // An accept queue as deep as the connections it may hold: a burst of connections
            // refused at once (503, 429) must not fill it and drop another client's SYN, which
            // then waits a second to be sent again (docs/operations.md, "Tenants").
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "reel",
                                 backlog: max(256, connections.limit)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port.map { HTTPAddress("\(address.host):\($0)") ?? address } ?? address
                logger.info("\(what) on http://\(bound)\(path)")
            },
            logger: logger)
    }
}
