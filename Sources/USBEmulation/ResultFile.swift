import FileAccess

/// A file an emulation writes once COMMAND has ended (`emulate dfu --dump`, `emulate
/// ft232h --log`), by `FileWriter`'s rules, its location checked before COMMAND
/// starts: a path that cannot be written fails the set-up (status 125, one `Error:`
/// line naming it) instead of costing COMMAND's run and status. A regular file's
/// temporary is made now, beside it (so the directory is known to take files); a
/// device, FIFO or link is checked now and opened at the end, since a FIFO's reader
/// may be COMMAND itself.
final class ResultFile {
    /// The option that named it ("--dump"), for messages.
    let option: String
    let path: String
    private var stream: FileStream?

    init(option: String, path: String) throws(EmulationError) {
        self.option = option
        self.path = path
        do {
            switch try FileWriter.destination(of: FilePath(path)) {
            case .replace: stream = try FileStream(FilePath(path))
            case .writeThrough: stream = nil
            }
        } catch { throw failure(error) }
    }

    /// Writes `bytes` and puts the file in place. A FIFO's reader is waited for until
    /// a signal after COMMAND says to stop (`CommandSignals`): then 128 + N.
    func write(_ bytes: [UInt8], signals: CommandSignals) throws(EmulationError) {
        do throws(FileAccessError) {
            let stream: FileStream
            if let opened = self.stream { stream = opened } else { stream = try FileStream(FilePath(path), giveUp: { signals.giveUpReason }) }
            self.stream = nil
            try stream.append(bytes)
            try stream.commit()
        } catch {
            if let signal = signals.sinceCommandEnded { throw .interrupted("\(option) \(TerminalText.echo(path)): \(error.problem)", signal: signal) }
            throw failure(error)
        }
    }

    private func failure(_ error: FileAccessError) -> EmulationError {
        .log("\(option) \(TerminalText.echo(path)): \(error)")
    }
}
