/// The pause and resume commands a streamed body's buffer gives its producer, carried out one at a time and in the
/// order they were decided: a value, so that the ordering is tested without I/O.
///
/// The buffer decides under the stream's lock; the producer is called outside it (a call may take its own locks).
/// Two threads that decide in turn (the producer's "pause" when the buffer fills, the reader's "resume" once it has
/// read it down) could otherwise call the producer in the other order, and leave a data task suspended while the
/// buffer believes it runs: the stream would stall until its idle timeout. Here the first thread to add a command
/// becomes the one that carries out commands until none is pending; a command added meanwhile waits its turn.
/// Commands are never merged: a producer that pauses by itself (libcurl) must still hear every resume.
struct ProducerCommands: Sendable {
    /// What the producer is told.
    enum Command: Sendable, Equatable {
        case pause, resume
    }

    private var pending: [Command] = []
    private var isCarryingOut = false

    /// Records a command; returns whether the caller must now carry out commands (``next()`` until `nil`), because
    /// no other thread is.
    mutating func add(_ command: Command) -> Bool {
        pending.append(command)
        guard !isCarryingOut else { return false }
        isCarryingOut = true
        return true
    }

    /// The next command for the thread that carries them out, or `nil`, which hands that duty back.
    mutating func next() -> Command? {
        guard !pending.isEmpty else {
            isCarryingOut = false
            return nil
        }
        return pending.removeFirst()
    }
}
