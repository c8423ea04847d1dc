import Farm
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// `--metrics ADDR` (docs/operations.md, "Metrics"): Prometheus text at `/metrics`, a
/// liveness answer at `/healthz` and a readiness answer at `/readyz`, served by Hummingbird
/// as one more service of the process's `ServiceGroup`.
public enum MetricsServer {
    /// Makes swift-metrics report to a Prometheus registry (once per process), with buckets
    /// that fit what the farm measures.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let render: [Duration] = [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300].map { .milliseconds(Int64($0 * 1000)) }
        factory.durationHistogramBuckets = [
            "reelfarm_worker_shard_seconds": render,
            "reelfarm_assembly_seconds": render,
            "reelfarm_store_commit_seconds": [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]
                .map { .microseconds(Int64($0 * 1_000_000)) },
            "reel_coordinator_loop_lag_seconds": [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]
                .map { .microseconds(Int64($0 * 1_000_000)) },
        ]
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// The HTTP service. `pulse`: the process's loop, stalled after `stallSeconds` without a
    /// beat. `readiness`: whether it takes work (a coordinator that leads); without one, a
    /// live process is ready.
    public static func service(at address: HTTPAddress, registry: PrometheusCollectorRegistry, pulse: LoopPulse,
                               readiness: Readiness? = nil, stallSeconds: Double = 10, logger: Logger) -> some Service {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: MetricsCatalogue.withHelp(String(decoding: registry.emitToBuffer(), as: UTF8.self)))))
        }
        router.get("/healthz") { _, _ -> Response in
            let health = Health(secondsSinceBeat: pulse.secondsSinceBeat, stallSeconds: stallSeconds)
            return Response(status: health.isLive ? .ok : .serviceUnavailable,
                            body: .init(byteBuffer: ByteBuffer(string: health.text + "\n")))
        }
        router.get("/readyz") { _, _ -> Response in
            let health = Health(secondsSinceBeat: pulse.secondsSinceBeat, stallSeconds: stallSeconds)
            let ready = health.isLive && readiness?.isReady != false
            let text = !health.isLive ? health.text : ready ? "ready" : "standing by: another coordinator leads"
            return Response(status: ready ? .ok : .serviceUnavailable, body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
        }
        return HTTPService.make(router, at: address, idleSeconds: 30, announcing: "metrics", path: "/metrics", logger: logger)
    }
}

/// What `/healthz` says: live while the loop beats.
struct Health: Equatable {
    let secondsSinceBeat: Double?
    let stallSeconds: Double

    var isLive: Bool { secondsSinceBeat.map { $0 < stallSeconds } ?? false }

    var text: String {
        guard let seconds = secondsSinceBeat else { return "starting" }
        return isLive ? "ok" : "stalled: the loop has not turned for \(Int(seconds)) s"
    }
}
