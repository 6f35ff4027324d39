import Foundation
import Testing

/// README.md's list of `msal` verbs (the `sh` block after the sentence naming this file) is the
/// tool's real interface: each verb listed exists, its flags are exactly those its `--help` shows,
/// and the literal values the README gives a flag (`--output text|json`) are the ones the help names.
@Suite("README: the msal verbs and flags")
struct ReadmeCLITests {
    /// One verb of the README's list, or one of its shared option groups (`APP_OPTIONS`, `CACHE_OPTIONS`).
    struct ListedVerb {
        var words: [String]
        var flags: [String: [String]] = [:]
        /// The shared option groups the line names.
        var groups: Set<String> = []
        var usesApplicationOptions: Bool { groups.contains("APP_OPTIONS") }
    }

    /// The names of the shared option groups.
    static let groupNames = ["APP_OPTIONS", "CACHE_OPTIONS"]

    /// The README's verb list.
    static func listedVerbs() throws -> [ListedVerb] {
        let readme = try String(contentsOf: CommandRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let mention = try #require(lines.firstIndex { $0.contains("Tests/MSALCommandLineTests/ReadmeCLITests.swift") })
        let open = try #require(lines[mention...].firstIndex { $0.hasPrefix("```sh") })
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") })

        var verbs: [ListedVerb] = []
        var groups: [String: ListedVerb] = [:]
        var current: ListedVerb?
        func finish() {
            guard let verb = current else { return }
            if let name = verb.words.first, Self.groupNames.contains(name) { groups[name] = verb } else { verbs.append(verb) }
            current = nil
        }
        for line in lines[(open + 1)..<close] {
            if line.hasPrefix("msal ") {
                finish()
                let words = line.split(separator: " ").dropFirst().prefix { word in
                    word.first?.isLowercase == true && word.allSatisfy { $0.isLowercase || $0 == "-" }
                }.map(String.init)
                current = ListedVerb(words: words)
            } else if let name = Self.groupNames.first(where: { line.hasPrefix($0 + ":") }) {
                finish()
                current = ListedVerb(words: [name])
            } else if !line.hasPrefix(" ") {
                Issue.record("README verb list: unexpected line \"\(line)\"")
                continue
            }
            for name in Self.groupNames where line.contains(" \(name)") { current?.groups.insert(name) }
            for match in line.matches(of: /--([a-z-]+)(?:[ =]([a-z0-9_-]+(?:\|[a-z0-9_-]+)+)(?![A-Za-z0-9_|-]))?/) {
                let values = match.output.2.map { $0.split(separator: "|").map(String.init) } ?? []
                current?.flags["--" + match.output.1] = values
            }
        }
        finish()
        // A group may name another (APP_OPTIONS names CACHE_OPTIONS): merge until nothing changes.
        func resolved(_ verb: ListedVerb) -> ListedVerb {
            var verb = verb
            var merged: Set<String> = []
            while let name = verb.groups.subtracting(merged).first {
                merged.insert(name)
                guard let group = groups[name] else {
                    Issue.record("README verb list: \(name) is used but never listed")
                    continue
                }
                verb.flags.merge(group.flags) { mine, _ in mine }
                verb.groups.formUnion(group.groups)
            }
            return verb
        }
        return verbs.map(resolved)
    }

    /// The options `msal <words> --help` describes: flag → its help text.
    static func helpOptions(_ words: [String]) async throws -> [String: String] {
        let result = try await CommandRunner.run(words + ["--help"])
        #expect(result.status == 0, "msal \(words.joined(separator: " ")) --help: \(result.standardError)")
        var options: [String: String] = [:]
        var current: String?
        var inOptions = false
        for line in result.standardOutput.split(separator: "\n").map(String.init) {
            if line == "OPTIONS:" { inOptions = true; continue }
            guard inOptions else { continue }
            if let match = line.firstMatch(of: /^  (?:-[a-z], )?(--[a-z-]+)/) {
                current = String(match.output.1)
                options[current!] = line
            } else if let current, line.hasPrefix("   ") {
                options[current, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            } else if !line.hasPrefix(" ") {
                inOptions = false
            }
        }
        options["--help"] = nil
        return options
    }

    @Test("Every listed verb has exactly the listed flags, with the listed values")
    func verbsAndFlags() async throws {
        let verbs = try Self.listedVerbs()
        #expect(
            verbs.map { $0.words.joined(separator: " ") } == [
                "login", "token", "logout", "app-token", "managed-identity token", "managed-identity source", "accounts", "cache show",
                "cache remove", "cache migrate", "authority show", "jwt decode",
                "jwt verify",
                "demo", "emulator",
            ])
        for verb in verbs {
            let name = "msal " + verb.words.joined(separator: " ")
            let options = try await Self.helpOptions(verb.words)
            #expect(
                Set(verb.flags.keys) == Set(options.keys), "\(name): README \(verb.flags.keys.sorted()), --help \(options.keys.sorted())")
            for (flag, values) in verb.flags {
                let help = options[flag] ?? ""
                for value in values {
                    #expect(help.contains(value), "\(name) \(flag): the help does not name \"\(value)\": \(help)")
                }
            }
        }
    }

    @Test("The verb list parser reads flags, values and shared options")
    func parserSeesValues() throws {
        let verbs = try Self.listedVerbs()
        let login = try #require(verbs.first { $0.words == ["login"] })
        #expect(login.usesApplicationOptions)
        #expect(login.flags["--prompt"] == ["select_account", "login", "consent", "create", "none"])
        #expect(login.flags["--output"] == ["text", "json"])
        #expect(login.flags["--client-id"] == [])
        let authority = try #require(verbs.first { $0.words == ["authority", "show"] })
        #expect(authority.flags["--authority-kind"] == ["auto", "aad", "b2c", "ciam", "adfs", "oidc"])
        #expect(authority.flags["--known-authority"] == [])
        #expect(authority.flags["--allow-http-loopback"] == [])
        let token = try #require(verbs.first { $0.words == ["token"] })
        #expect(token.flags["--cache-storage"] == ["file", "secret-service", "memory"])
        #expect(token.flags["--signal-file"] == [])
    }
}
