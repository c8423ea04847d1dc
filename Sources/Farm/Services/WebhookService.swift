import ServiceLifecycle

/// The webhook deliverer as a service beside the coordinator: on shutdown it finishes the
/// delivery in hand; what is still pending is delivered after the next start.
public struct WebhookService: Service, CustomStringConvertible {
    let deliverer: WebhookDeliverer

    public init(_ deliverer: WebhookDeliverer) { self.deliverer = deliverer }

    public var description: String { "webhooks" }

    public func run() async throws {
        let deliverer = deliverer
        try await withGracefulShutdownHandler {
            try await onOwnThread(named: "webhooks") { try deliverer.run() }
        } onGracefulShutdown: {
            deliverer.stopDelivering()
        }
    }
}
