#if MSAL_TSAN
import MSALJOSE

/// In ThreadSanitizer builds (`-DMSAL_TSAN`), `Mutex` in this module is `ThreadSanitizerMutex`,
/// a lock ThreadSanitizer can see; release and debug builds use `Synchronization.Mutex`.
typealias Mutex<Value: ~Copyable> = ThreadSanitizerMutex<Value>
#endif
