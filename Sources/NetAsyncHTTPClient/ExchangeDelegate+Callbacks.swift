#if AsyncHTTPClient  // the package trait: without it this file compiles to nothing
import AsyncHTTPClient
import NetCore
@_spi(NetInternals) import NetTransport
import NIOCore
import NIOHTTP1

/// AsyncHTTPClient's callbacks, on the request's event loop: the head is noted and handed over at
/// the end of the turn that read it, parts are queued for the reader (pausing the read at
/// ``ExchangeDelegate/pauseAt``), and the end resumes whoever waits.
extension ExchangeDelegate {
    package func didSendRequest(task: HTTPClient.Task<Void>) {
        sentWhole?()
    }

    package func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        record?.reached(.firstByte)
        state.withLock { $0.head = head }
        // After the parts read with the head in this turn, so that a small body comes with it.
        task.eventLoop.execute { self.releaseHead() }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    private func releaseHead() {
        let (waiter, head) = state.withLock { state -> (HeadWaiter?, HTTPResponseHead?) in
            guard !state.headReleased, state.head != nil else { return (nil, nil) }
            state.headReleased = true
            guard let waiter = state.headWaiter.take() else { return (nil, nil) }  // `head()` takes it later
            return (waiter, state.head.take())  // moved out: nothing asks for it again
        }
        if let waiter, let head { waiter.resume(returning: head) }
    }

    package func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let (wake, pause) = state.withLock { state -> (Bool, EventLoopPromise<Void>?) in
            guard !state.cancelled, buffer.readableBytes > 0 else { return (false, nil) }
            state.parts.append(buffer)
            state.unread += buffer.readableBytes
            // A waiting reader is woken once per turn of the loop, with every part read in it.
            let wake = state.bodyWaiter != nil && !state.wakeScheduled
            if wake { state.wakeScheduled = true }
            guard state.unread >= Self.pauseAt else { return (wake, nil) }
            let promise = task.eventLoop.makePromise(of: Void.self)
            state.paused = promise
            return (wake, promise)
        }
        if wake { task.eventLoop.execute { self.wakeReader() } }
        if let pause {
            releaseHead()  // the reader must be able to start, or it would never resume the read
            return pause.futureResult
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    private func wakeReader() {
        let (waiter, taken, resume) = state.withLock { state -> (BodyWaiter?, Result<ByteBuffer?, any Error>?, EventLoopPromise<Void>?) in
            state.wakeScheduled = false
            guard let waiter = state.bodyWaiter else { return (nil, nil, nil) }
            let (taken, resume) = Self.take(&state)
            guard let taken else { return (nil, nil, resume) }
            state.bodyWaiter = nil
            return (waiter, taken, resume)
        }
        resume?.succeed(())
        if let waiter, let taken { waiter.resume(with: taken) }
    }

    package func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        end(.success(()))
    }

    package func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        end(.failure(error))
    }

    /// AsyncHTTPClient is done: the head goes to its waiter (or the error, if no head came), and a
    /// waiting reader gets the next part, or the end.
    func end(_ result: Result<Void, any Error>) {
        let pending = state.withLock { state -> Pending? in
            guard state.end == nil else { return nil }
            state.end = result
            // Under the lock: a reader that sees the end may start the next call at once, and
            // that call must find this exchange no longer counted.
            affinity.ended(counted)
            let paused = Pending.takePaused(&state)
            var head: (HeadWaiter, Result<HTTPResponseHead, any Error>)?
            if let waiter = state.headWaiter.take() {
                // Moved out: with its waiter resumed, nothing asks for the head again.
                if let received = state.head.take() {
                    head = (waiter, .success(received))
                } else if case .failure(let error) = result {
                    head = (waiter, .failure(error))
                } else {
                    head = (waiter, .failure(NetworkError.transport(.connectionLost("the exchange ended without a response head"))))
                }
            }
            var body: (BodyWaiter, Result<ByteBuffer?, any Error>)?
            if let waiter = state.bodyWaiter.take() {
                // With the end set, taking always gives a part or the end.
                body = (waiter, Self.take(&state).0 ?? .success(nil))
            }
            // Most exchanges end with no one waiting: nothing to allocate.
            guard head != nil || body != nil || paused != nil else { return nil }
            return Pending(task: nil, head: head, body: body, paused: paused)
        }
        pending?.resume()
    }
}
#endif
