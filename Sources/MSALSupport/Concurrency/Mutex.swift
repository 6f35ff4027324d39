import Synchronization

// The one place that decides which lock the package's modules use. Every module imports
// MSALSupport, never Synchronization: a file that imported both would see two `Mutex` types in a
// ThreadSanitizer build.

#if MSAL_TSAN
/// `Synchronization.Mutex` in release and debug builds; in ThreadSanitizer builds
/// (`-DMSAL_TSAN`), ``ThreadSanitizerMutex``, whose ordering ThreadSanitizer can see.
package typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>
#else
/// `Synchronization.Mutex` in release and debug builds; in ThreadSanitizer builds
/// (`-DMSAL_TSAN`), ``ThreadSanitizerMutex``, whose ordering ThreadSanitizer can see.
package typealias Mutex<Value: ~Copyable> = Synchronization.Mutex<Value>
#endif

/// `Synchronization.Atomic`, re-exported so that no module needs to import Synchronization
/// (ThreadSanitizer instruments atomics compiled into our own code, so no replacement is needed).
package typealias Atomic<Value: AtomicRepresentable> = Synchronization.Atomic<Value>

/// `Synchronization.AtomicLazyReference`, re-exported for the same reason as ``Atomic``.
package typealias AtomicLazyReference<Instance: AnyObject> = Synchronization.AtomicLazyReference<Instance>
