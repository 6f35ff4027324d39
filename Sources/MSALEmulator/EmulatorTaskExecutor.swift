import NIOCore

/// Runs the tasks that answer requests on the event loop of the connection they came from, not on
/// Swift's shared cooperative pool.
///
/// The emulator usually runs inside a test process or an app, where other tasks may keep every
/// cooperative thread busy (two threads on a two-core machine). A request answered through that
/// pool waits until one of them is free; in a full parallel test run this took more than the
/// client's 10 s network timeout. Event loop threads belong to SwiftNIO and are never given to
/// other tasks, so an answer waits only for other answers and for I/O. The work of an answer is
/// short and never blocks (a fault's delay suspends with `Task.sleep`), so it does not hold up the
/// loop's I/O.
final class EmulatorTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
