import CCurl
import Foundation
import Synchronization

/// One thread driving every transfer of the process on one libcurl multi handle, so connections are
/// reused and no transfer holds a Swift concurrency thread while it waits on the network.
///
/// Threading: `add` and `wake` are called from any thread; the rest runs on the loop thread only, which
/// alone touches the multi handle and the transfers' easy handles.
final class TransferLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let incoming = Mutex<[CurlTransfer]>([])
    /// Running transfers by easy handle, touched on the loop thread only.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    static let shared = TransferLoop()

    private init() {
        _ = mn_curl_global_init()
        multi = curl_multi_init()
        mn_curl_multi_set_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 4)
        let thread = Thread { [unowned self] in run() }
        thread.name = "http-transfers"
        thread.start()
    }

    func add(_ transfer: CurlTransfer) {
        incoming.withLock { $0.append(transfer) }
        wake()
    }

    /// Interrupts the loop's wait, so an added or cancelled transfer is seen at once.
    func wake() { curl_multi_wakeup(multi) }

    private func run() {
        while true {
            for transfer in incoming.withLock({ list in defer { list.removeAll() }; return list }) {
                transfer.started = .now
                transfer.lastProgress = .now
                running[transfer.easy] = transfer
                if curl_multi_add_handle(multi, transfer.easy) != CURLM_OK {
                    finish(transfer, .failure(HTTPTransferError.network("libcurl refused the transfer")))
                }
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = running[easy]
                else { continue }
                finish(transfer, transfer.outcome(mn_curl_message_result(message)))
            }
            let now = ContinuousClock.now
            for transfer in running.values {
                if transfer.cancelled.load(ordering: .relaxed) {
                    finish(transfer, .failure(CancellationError()))
                } else if transfer.overdue(at: now) {
                    finish(transfer, .failure(HTTPTransferError.timedOut))
                }
            }
            curl_multi_poll(multi, nil, 0, waitMilliseconds(), nil)
        }
    }

    /// Until libcurl's next timer or the nearest transfer deadline; a minute when idle (an add wakes it).
    private func waitMilliseconds() -> Int32 {
        var timeout = 60_000
        var curlTimeout = -1
        curl_multi_timeout(multi, &curlTimeout)
        if curlTimeout >= 0 { timeout = min(timeout, curlTimeout) }
        let now = ContinuousClock.now
        for transfer in running.values {
            timeout = min(timeout, CurlTransfer.milliseconds(max(.zero, transfer.nextDeadline() - now)) + 1)
        }
        return Int32(timeout)
    }

    private func finish(_ transfer: CurlTransfer, _ result: Result<HTTPTransferResult, any Error>) {
        curl_multi_remove_handle(multi, transfer.easy)
        running[transfer.easy] = nil
        transfer.resume(with: result)
    }
}
