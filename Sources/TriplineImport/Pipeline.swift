#if canImport(Glibc)
@preconcurrency import Glibc
#endif

import TriplineCore


/// A blocking FIFO of bounded capacity between the parsing thread and the writing thread.
/// `push` waits while full, `pop` waits while empty; `close` wakes both sides for good.
final class BoundedQueue<Element>: @unchecked Sendable {
    private var items: [Element?] = []
    private var head = 0
    private let capacity: Int
    private var closed = false
    private var mutex = pthread_mutex_t()
    private var notEmpty = pthread_cond_t()
    private var notFull = pthread_cond_t()

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&notEmpty, nil)
        pthread_cond_init(&notFull, nil)
    }

    deinit {
        pthread_mutex_destroy(&mutex)
        pthread_cond_destroy(&notEmpty)
        pthread_cond_destroy(&notFull)
    }

    /// Adds an element, waiting while the queue is full. Returns false (dropping it) once the queue is closed.
    @discardableResult
    func push(_ element: Element) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.count - head >= capacity && !closed { pthread_cond_wait(&notFull, &mutex) }
        if closed { return false }
        items.append(element)
        pthread_cond_signal(&notEmpty)
        return true
    }

    /// Adds an element only when there is room (never waits).
    func offer(_ element: Element) {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        if items.count - head < capacity && !closed { items.append(element) }
    }

    /// Takes the oldest element, waiting while empty; nil once closed and drained.
    func pop() -> Element? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while items.count == head && !closed { pthread_cond_wait(&notEmpty, &mutex) }
        return takeLocked()
    }

    /// Takes the oldest element without waiting.
    func poll() -> Element? {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return takeLocked()
    }

    private func takeLocked() -> Element? {
        guard items.count > head else { return nil }
        let element = items[head]
        items[head] = nil  // do not keep a taken batch alive
        head += 1
        if head >= 16 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        pthread_cond_signal(&notFull)
        return element
    }

    /// Ends the queue: pending pushes return false, pops drain what is left then return nil.
    func close() {
        pthread_mutex_lock(&mutex)
        closed = true
        pthread_cond_broadcast(&notEmpty)
        pthread_cond_broadcast(&notFull)
        pthread_mutex_unlock(&mutex)
    }

    var isClosed: Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return closed
    }
}

/// A thread that runs a closure once (pthreads; no Foundation).
final class WorkerThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let box = Unmanaged.passRetained(self).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, 8 << 20)
        pthread_create(&thread, &attributes, { raw in
            let me = Unmanaged<WorkerThread>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, box)
        pthread_attr_destroy(&attributes)
    }

    func join() {
        pthread_join(thread, nil)
    }
}

