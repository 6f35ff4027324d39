import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// `msal`: the swift-msal command-line tool.
@main
struct MSALCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msal",
        abstract: "swift-msal: Microsoft identity platform authentication for Linux.",
        subcommands: [
            LoginCommand.self, TokenCommand.self, LogoutCommand.self, AccountsCommand.self, AppTokenCommand.self,
            ManagedIdentityCommand.self, AuthorityCommand.self,
            CacheCommand.self,
            JWTCommand.self,
            EmulatorCommand.self, DemoCommand.self,
        ]
    )

    /// Sets how `malloc` grows before any thread starts, then runs the command.
    ///
    /// One arena for every thread: the cache is read on a worker thread, and glibc grows a worker
    /// thread's own arena a page at a time, one `mprotect` per page (12,000 of them, 7 % of a
    /// `msal token` process on a 10,000-account cache); the main arena grows by `M_TOP_PAD` at a
    /// time. A command runs a few threads for a moment, so they do not contend for one arena.
    static func main() async {
        #if canImport(Glibc)
        // glibc's `mallopt` (declared in <malloc.h>, which the Glibc module does not import).
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {  // RTLD_DEFAULT
            let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
            _ = mallopt(-8, 1)  // M_ARENA_MAX
            _ = mallopt(-2, 8 << 20)  // M_TOP_PAD
        }
        #endif
        await main(nil)
    }
}

/// `msal jwt …`
struct JWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwt",
        abstract: "Decode and verify JSON Web Tokens.",
        subcommands: [JWTDecodeCommand.self, JWTVerifyCommand.self]
    )
}

/// Output formats shared by the verbs.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}
