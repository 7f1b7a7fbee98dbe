import Logging
import ServiceLifecycle
import Synchronization

/// Times the node's shutdown step by step: the group stops its services one at a time in reverse order, and
/// a shutdown that hangs is then found in the log by the last step that said it stopped.
///
/// Owns when the shutdown began; each step is a service wrapped in `TimedStep`.
final class ShutdownSteps: Sendable {
    private let logger: Logger
    private let stepCount: Int
    private let began = Mutex<ContinuousClock.Instant?>(nil)
    /// A step slower than this is logged as a warning: the whole shutdown has 3 s (README, "Shutdown").
    static let slowStep = Duration.seconds(1)

    init(stepCount: Int, logger: Logger) {
        self.stepCount = stepCount
        self.logger = logger
    }

    /// The group asked `name` to stop.
    func asked(_ name: String) {
        let isFirst = began.withLock { began in
            guard began == nil else { return false }
            began = .now
            return true
        }
        if isFirst { logger.info("shutdown: stopping the node's \(stepCount) parts, \(name) first") }
    }

    /// `name` stopped `duration` after it was asked to; `isLast` when it is the last step (the transport).
    func stopped(_ name: String, after duration: Duration, isLast: Bool) {
        let text = "shutdown: \(name) stopped in \(Self.milliseconds(duration)) ms"
        if duration > Self.slowStep { logger.warning("\(text)") } else { logger.info("\(text)") }
        guard isLast, let began = began.withLock({ $0 }) else { return }
        logger.info("shutdown: done in \(Self.milliseconds(.now - began)) ms")
    }

    static func milliseconds(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return milliseconds < 10 ? String(format: "%.1f", milliseconds) : String(Int(milliseconds.rounded()))
    }
}

/// One service of the group, timed from the moment the group asks it to stop until it has.
struct TimedStep: Service {
    let name: String
    let service: any Service
    let steps: ShutdownSteps
    let isLast: Bool

    func run() async throws {
        let asked = Mutex<ContinuousClock.Instant?>(nil)
        // The handler runs beside the service's own: both follow the one graceful shutdown the group
        // gives this service.
        try await withGracefulShutdownHandler {
            try await service.run()
        } onGracefulShutdown: { [name, steps] in
            asked.withLock { $0 = .now }
            steps.asked(name)
        }
        if let asked = asked.withLock({ $0 }) { steps.stopped(name, after: .now - asked, isLast: isLast) }
    }
}

extension ShutdownSteps {
    /// The services, each timed as a step of the shutdown; the first one is the last to stop.
    static func timing(_ services: [ServiceGroupConfiguration.ServiceConfiguration], logger: Logger)
        -> [ServiceGroupConfiguration.ServiceConfiguration]
    {
        let steps = ShutdownSteps(stepCount: services.count, logger: logger)
        return services.enumerated().map { index, configuration in
            .init(
                service: TimedStep(name: configuration.serviceName, service: configuration.service, steps: steps, isLast: index == 0),
                serviceName: configuration.serviceName)
        }
    }
}
