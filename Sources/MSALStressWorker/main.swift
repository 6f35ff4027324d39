// A helper process for multi-process tests of the token cache: `MSALStressWorker MODE ARGUMENTS…`.
//
// Exit status: 0 when the mode finished, 1 when it threw (standard error gets
// `error <internal code> <message>`), 2 for a usage error. To add modes, add a group like
// `FileModes` and list it in `WorkerMode.all`.
import Glibc
import MSAL

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let mode = WorkerMode.all[name] else {
    WorkerMode.fail(
        usage: "usage: MSALStressWorker MODE ARGUMENTS…\nmodes:\n"
            + WorkerMode.all.keys.sorted().map { "  \($0) \(WorkerMode.all[$0]!.usage)" }.joined(separator: "\n"))
}
do {
    try mode.run(Array(arguments.dropFirst()))
    exit(0)
} catch let error as MSALFailure {
    WorkerMode.printError("error \(error.internalCode?.rawValue ?? error.code.rawValue) \(error.message)")
    exit(1)
} catch {
    WorkerMode.printError("error 0 \(error)")
    exit(1)
}
