import CGIO
import Foundation
import Synchronization

/// A GLib main context with a thread of its own that iterates it.
///
/// GDBus delivers a connection's method calls, signals and async results to the main context that was
/// the thread's default when the connection was made. The binding makes its connections on this loop's
/// thread, so every GDBus callback runs here, one at a time, and nothing else in the process (the
/// cooperative pool, GStreamer's threads, libmosquitto's) ever iterates this context.
///
/// Threading: `perform` and `after` may be called from any thread; the work runs on the loop's thread in
/// the order it was posted, and must not block, for it holds up every call and signal of the bus.
public final class BusLoop: @unchecked Sendable {
    /// The GMainContext; touched by GLib only, which locks it itself.
    let context: OpaquePointer
    private let loop: OpaquePointer
    private let thread: Thread
    private let ended = LoopEnd()
    private let isStopping = Atomic(false)

    /// Starts the loop's thread, named `name` (as `ps -L` and a debugger show it).
    public init(name: String) {
        let context = g_main_context_new()!
        let loop = g_main_loop_new(context, 0)!
        (self.context, self.loop) = (context, loop)
        let ended = self.ended
        let pointers = SendablePointers(context: context, loop: loop)
        thread = Thread {
            g_main_context_push_thread_default(pointers.context)
            g_main_loop_run(pointers.loop)
            g_main_context_pop_thread_default(pointers.context)
            ended.markEnded()
        }
        thread.name = name
        thread.start()
    }

    deinit {
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs `work` on the loop's thread, after the work posted before it.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        attach(g_idle_source_new(), work)
    }

    /// Runs `work` on the loop's thread once `delay` has passed.
    public func after(_ delay: Duration, _ work: @escaping @Sendable () -> Void) {
        let milliseconds = max(0, delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        attach(g_timeout_source_new(UInt32(clamping: milliseconds)), work)
    }

    /// Whether the caller is on the loop's thread (for preconditions on the threading contract).
    public var isCurrent: Bool { g_main_context_is_owner(context) != 0 }

    /// Stops the loop once the work posted before is done, and returns when its thread has ended.
    public func stop() async {
        if !isStopping.exchange(true, ordering: .acquiringAndReleasing) {
            let loop = SendablePointer(loop)
            perform { g_main_loop_quit(loop.pointer) }
        }
        await ended.wait()
    }

    private func attach(_ source: UnsafeMutablePointer<GSource>?, _ work: @escaping @Sendable () -> Void) {
        guard let source else { return }
        // The default priority, not the idle one: the bus's own I/O must not starve a reply waiting here.
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, { data in
            Unmanaged<LoopWork>.fromOpaque(data!).takeUnretainedValue().body()
            return 0  // G_SOURCE_REMOVE: each piece of work runs once
        }, Unmanaged.passRetained(LoopWork(work)).toOpaque(), { data in
            Unmanaged<LoopWork>.fromOpaque(data!).release()
        })
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

/// Whether the loop's thread has ended, and who waits for it to.
private final class LoopEnd: Sendable {
    private let state = Mutex<(isEnded: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func markEnded() {
        let waiters = state.withLock { state in
            state.isEnded = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isEnded = state.withLock { state in
                if !state.isEnded { state.waiters.append(continuation) }
                return state.isEnded
            }
            if isEnded { continuation.resume() }
        }
    }
}

/// The context and loop, for the thread that alone iterates them.
private struct SendablePointers: @unchecked Sendable {
    let context: OpaquePointer
    let loop: OpaquePointer
}

/// A closure GLib carries as a source's user data.
private final class LoopWork {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
