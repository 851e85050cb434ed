import Dispatch

/// Ends sends that pass their deadline, for all sends of one transport with a single timer.
///
/// A timer per request would cost a hop to the timer's queue for every request (a cancelled dispatch source runs its
/// cancellation on its queue) and `asyncAfter` keeps every request's closure alive until its deadline. Instead each
/// send registers a deadline and an action; one timer ticks every 50 ms while any send is registered, and stops when
/// none is. Registering and finishing cost a lock and a dictionary update.
final class DeadlineMonitor: Sendable {
    /// How late a deadline may fire, at most.
    static let resolution: DispatchTimeInterval = .milliseconds(50)

    private struct Watch {
        let deadline: DispatchTime
        let expire: @Sendable () -> Void
    }

    private struct State {
        var nextID = 0
        var watches: [Int: Watch] = [:]
        var timer: (any DispatchSourceTimer)?
    }

    private let queue = DispatchQueue(label: "NetworkLayer.DeadlineMonitor")
    private let state = Locked(State())

    /// Calls `expire` once `seconds` have passed, unless ``cancel(_:)`` comes first; returns the watch's identifier.
    func watch(seconds: Double, expire: @escaping @Sendable () -> Void) -> Int {
        let deadline = DispatchTime.now() + seconds
        return state.withLock { state in
            let id = state.nextID
            state.nextID &+= 1
            state.watches[id] = Watch(deadline: deadline, expire: expire)
            if state.timer == nil { state.timer = startTimer() }
            return id
        }
    }

    /// Forgets a watch whose send finished.
    func cancel(_ id: Int) {
        _ = state.withLock { $0.watches.removeValue(forKey: id) }
    }

    private func startTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + Self.resolution, repeating: Self.resolution, leeway: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        return timer
    }

    /// Runs the actions of every expired watch; stops the timer when nothing is watched.
    private func tick() {
        let now = DispatchTime.now()
        let expired = state.withLock { state -> [Watch] in
            let due = state.watches.filter { $0.value.deadline <= now }
            for id in due.keys { state.watches[id] = nil }
            if state.watches.isEmpty {
                state.timer?.cancel()
                state.timer = nil
            }
            return Array(due.values)
        }
        for watch in expired { watch.expire() }
    }

    deinit {
        state.withLock { $0.timer?.cancel() }
    }
}
