// Compiled only with the package trait TestEntryPoints, which FuzzTesting enables (see Package.swift).
#if MSAL_TEST_ENTRY_POINTS
/// Entry points for the libFuzzer targets of `FuzzTesting/` (a separate package, which cannot see
/// `package` symbols). Not API: import with `@_spi(Fuzzing) import MSAL`.
///
/// Each entry point is a thin call into the parser or check a target exercises, returning plain
/// values the target can compare; the invariants themselves live in the targets. Nothing here
/// changes behaviour, keeps state or is used by the SDK.
@_spi(Fuzzing) public enum MSALFuzzingSupport {}
#endif
