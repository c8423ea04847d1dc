import ArgumentParser
import Farm
import FarmHTTP
import Logging
import Prometheus
import ServiceLifecycle

/// How a farm process logs and reports (docs/operations.md, "Logs" and "Metrics").
struct OperationsOptions: ParsableArguments {
    @Option(name: .customLong("log-format"), help: "text (for people) or json (one object per line, for log shippers).")
    var logFormat: LineLogHandler.Format = .text

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("Serve Prometheus metrics at http://ADDR/metrics and liveness at /healthz, e.g. 127.0.0.1:9464 or :9464.",
                               valueName: "ADDR"))
    var metrics: String?

    func validate() throws {
        if let metrics, HTTPAddress(metrics) == nil {
            throw ValidationError("--metrics '\(metrics)' is not HOST:PORT (e.g. 127.0.0.1:9464 or :9464)")
        }
    }

    var metricsAddress: HTTPAddress? { metrics.flatMap(HTTPAddress.init) }

    /// Sets the process's logging up (once) and returns the logger for `label`.
    func logger(_ label: String, quiet: Bool = false) -> Logger {
        let (format, level) = (logFormat, quiet ? Logger.Level.critical : logLevel)
        LoggingSystem.bootstrap { LineLogHandler(label: $0, format: format, level: level) }
        return Logger(label: label)
    }

    /// Runs `service` (and `others`, such as the HTTP API) with the metrics server beside it, if asked, until SIGTERM/SIGINT
    /// (graceful) or SIGQUIT (at once); `gracePeriod` bounds the graceful part. Every service is vital: when any one ends
    /// or fails, the group shuts down and the process exits (non-zero on a failure), so an orchestrator restarts a whole
    /// process, never a half-dead one whose API is gone while its loop runs (docs/operations.md, "Shutting down").
    func run(_ service: some Service, alongside others: [any Service] = [], role: MetricsCatalogue.Role, pulse: LoopPulse,
             readiness: Readiness? = nil, gracePeriod: Duration?, logger: Logger) async throws {
        var all: [any Service] = [service] + others
        if let address = metricsAddress {
            let registry = MetricsServer.bootstrap()
            MetricsCatalogue.exportAtZero(role)
            all.append(EssentialService("the metrics server", MetricsServer.service(at: address, registry: registry, pulse: pulse, readiness: readiness, logger: logger)))
        }
        let services = all.map {
            ServiceGroupConfiguration.ServiceConfiguration(service: $0, successTerminationBehavior: .gracefullyShutdownGroup,
                                                           failureTerminationBehavior: .gracefullyShutdownGroup)
        }
        var configuration = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                                                      cancellationSignals: [.sigquit], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        try await ServiceGroup(configuration: configuration).run()
    }
}

extension LineLogHandler.Format: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}
