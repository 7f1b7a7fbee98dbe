import CatalogStore
import Foundation
import HTTPTransfer
#if canImport(Glibc)
import Glibc
#endif

// MARK: - One download: the transfer, the checks on what came, and the move into place

extension DownloadManager {
    func perform(_ record: DownloadRecord) async {
        var record = record
        record.status = .downloading
        record.message = nil
        try? await store.saveDownload(record)
        eventContinuation.yield(.changed(record.identifier))
        let partial = partialDirectory.appendingPathComponent(record.fileName + ".part")
        let outcome: Result<Int64, any Error>
        do {
            guard let url = URL(string: record.url) else { throw HTTPTransferError.unsupportedScheme(record.url) }
            let request = HTTPTransferRequest(url: url, connectTimeout: .seconds(15), idleTimeout: idleTimeout)
            let identifier = record.identifier
            let result = try await client.download(request, to: partial, resume: true) { [weak self] progress in
                self?.progressed(identifier, progress)
            }
            outcome = .success(try accept(result, at: partial))
        } catch {
            outcome = .failure(error)
        }
        await finish(record, partial: partial, outcome)
    }

    /// Checks a transfer that ended without an error; returns the copy's size.
    func accept(_ result: HTTPTransferResult, at partial: URL) throws -> Int64 {
        let head = result.head
        guard (200...299).contains(head.status) else { throw DownloadError.status(head.status) }
        if let type = head.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased(),
           type.hasPrefix("text/") || type.contains("html") || type.contains("xml") || type.contains("json") {
            throw DownloadError.notAudio(type)
        }
        let stored = (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int64) ?? 0
        if let declared = head.contentLength {
            let expected = result.offset + declared
            guard stored == expected, result.offset + result.received == expected else {
                throw DownloadError.length(expected: expected, stored: stored)
            }
        }
        guard stored > 0 else { throw DownloadError.empty }
        return stored
    }

    func finish(_ record: DownloadRecord, partial: URL, _ outcome: Result<Int64, any Error>) async {
        var record = record
        let final = directory.appendingPathComponent(record.fileName)
        switch outcome {
        case let .success(bytes):
            // rename(2) is atomic within the folder's file system: the name holds the old state or the whole copy.
            guard rename(partial.path, final.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: partial)
                await failed(record, message: "could not move the copy into place: \(reason)", retry: false)
                return
            }
            record.status = .downloaded
            record.bytes = bytes
            record.message = nil
            record.finishedAt = Date()
            guard commit(record) else { return }
            do {
                try await store.saveDownload(record)
            } catch {
                logger.error("a finished download could not be recorded: \(error)", metadata: ["identifier": "\(record.identifier)"])
            }
            logger.info("downloaded", metadata: ["identifier": "\(record.identifier)", "bytes": "\(bytes)"])
            // Settled before it is announced: whoever hears `finished` sees the folder within the quota.
            await enforceQuota(keeping: record.identifier)
            await listDownloaded()
            eventContinuation.yield(.changed(record.identifier))
            eventContinuation.yield(.finished(identifier: record.identifier, bytes: bytes))
        case let .failure(error) where error is CancellationError:
            // Deleted (files already gone) or paused for a metered network: queued again, the partial kept.
            let paused = state.withLock { state -> Bool in
                guard state.records[record.identifier]?.status == .downloading else { return false }
                state.records[record.identifier]?.status = .queued
                return true
            }
            if paused {
                record.status = .queued
                try? await store.saveDownload(record)
                eventContinuation.yield(.changed(record.identifier))
            }
        case .failure(DownloadError.status(416)) where FileManager.default.fileExists(atPath: partial.path):
            // The partial file is as long as the resource or longer (a kill after the last byte, before the
            // rename, or a file changed on the server): start over, without a Range request.
            try? FileManager.default.removeItem(at: partial)
            record.status = .queued
            record.bytes = 0
            let requeued = state.withLock { state -> Bool in
                state.running[record.identifier] = nil
                guard state.records[record.identifier]?.status == .downloading else { return false }
                state.records[record.identifier] = record
                return true
            }
            if requeued { try? await store.saveDownload(record) }
        case let .failure(error):
            // A network loss keeps the bytes for a Range request; a wrong answer leaves nothing behind.
            let retryable: Bool
            switch error {
            case HTTPTransferError.timedOut, HTTPTransferError.truncated, HTTPTransferError.network: retryable = true
            default: retryable = false
            }
            if !retryable { try? FileManager.default.removeItem(at: partial) }
            await failed(record, message: "\(error)", retry: retryable)
        }
        wakeContinuation.yield()
    }

    /// Ends the running entry; false when the item was deleted meanwhile (its files then go too).
    func commit(_ record: DownloadRecord) -> Bool {
        let current = state.withLock { state -> Bool in
            state.running[record.identifier] = nil
            state.progress[record.identifier] = nil
            guard state.records[record.identifier]?.status == .downloading else { return false }
            state.records[record.identifier] = record
            return true
        }
        if !current { removeFiles(of: record) }
        return current
    }

    func failed(_ record: DownloadRecord, message: String, retry: Bool) async {
        var record = record
        record.status = .failed
        record.message = message
        guard commit(record) else { return }
        logger.warning("download failed", metadata: ["identifier": "\(record.identifier)", "error": "\(message)"])
        try? await store.saveDownload(record)
        eventContinuation.yield(.changed(record.identifier))
        eventContinuation.yield(.failed(identifier: record.identifier, message: message))
        guard retry else { return }
        let identifier = record.identifier
        Task { [weak self, retryDelay] in
            try? await Task.sleep(for: retryDelay)
            guard let self, let again = self.record(for: identifier), again.status == .failed else { return }
            try? await self.download(identifier: identifier, url: again.url, automatic: again.isAutomatic)
        }
    }

    /// Called on the transfer thread; reported on at most once a second per item.
    func progressed(_ identifier: String, _ progress: HTTPTransferProgress) {
        let now = ContinuousClock.now
        let report = state.withLock { state -> Double?? in
            if let total = progress.expectedTotal, total > 0 {
                state.progress[identifier] = min(1, Double(progress.offset + progress.received) / Double(total))
            }
            if let last = state.lastReported[identifier], now - last < .seconds(1) { return .none }
            state.lastReported[identifier] = now
            return .some(state.progress[identifier])
        }
        guard case let .some(fraction) = report else { return }
        Task { [store, eventContinuation] in
            try? await store.saveDownloadProgress(identifier, progress: fraction)
            eventContinuation.yield(.changed(identifier))
        }
    }

    func removeFiles(of record: DownloadRecord) {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(record.fileName))
        try? FileManager.default.removeItem(at: partialDirectory.appendingPathComponent(record.fileName + ".part"))
    }
}
