import Foundation

/// Turns browser launcher commands into argument vectors, without a shell.
///
/// The URL always becomes one argument (or part of one, where a `%s` stands), so characters such as
/// `;`, `$(…)`, quotes or spaces in it are never interpreted: nothing here goes through `sh -c`.
package enum BrowserCommandLine {
    /// The argument vector of `template` for `url`.
    ///
    /// `%s` in an argument is replaced by the URL and `%%` by `%`; when no argument contains `%s` the URL
    /// is appended as a last argument.
    package static func arguments(_ template: [String], url: String) -> [String] {
        var substituted = false
        var result: [String] = []
        result.reserveCapacity(template.count + 1)
        for argument in template {
            let (expanded, didSubstitute) = expand(argument, url: url)
            substituted = substituted || didSubstitute
            result.append(expanded)
        }
        if !substituted {
            result.append(url)
        }
        return result
    }

    /// The commands of a `$BROWSER` value: a colon-separated list, each entry split into words.
    ///
    /// Empty entries are skipped. An entry with an unbalanced quote or a trailing backslash is reported as
    /// `nil`, so the caller can name it and move on to the next.
    package static func browserCommands(_ value: String) -> [(entry: String, words: [String]?)] {
        value.split(separator: ":", omittingEmptySubsequences: true).compactMap { entry in
            let text = String(entry)
            guard let words = words(text) else { return (text, nil) }
            return words.isEmpty ? nil : (text, words)
        }
    }

    /// Splits a command into words the way a POSIX shell does for plain words and quotes, and nothing more.
    ///
    /// Blanks separate words; `'…'` is literal; inside `"…"` a backslash escapes `"`, `\`, `$` and `` ` ``;
    /// outside quotes a backslash escapes the next character. There are no expansions, variables,
    /// globbing, pipes or separators: `;`, `|`, `$(…)` are ordinary characters.
    ///
    /// - Returns: the words, or `nil` for an unbalanced quote or a trailing backslash.
    package static func words(_ command: String) -> [String]? {
        enum Mode { case plain, single, double }
        var words: [String] = []
        var current = ""
        var inWord = false
        var mode = Mode.plain
        var escaped = false
        for character in command {
            if escaped {
                if mode == .double, !["\"", "\\", "$", "`"].contains(character) {
                    current.append("\\")
                }
                current.append(character)
                escaped = false
                continue
            }
            switch mode {
            case .plain:
                switch character {
                case " ", "\t", "\n":
                    if inWord {
                        words.append(current)
                        current = ""
                        inWord = false
                    }
                case "\\":
                    escaped = true
                    inWord = true
                case "'":
                    mode = .single
                    inWord = true
                case "\"":
                    mode = .double
                    inWord = true
                default:
                    current.append(character)
                    inWord = true
                }
            case .single:
                if character == "'" {
                    mode = .plain
                } else {
                    current.append(character)
                }
            case .double:
                switch character {
                case "\"": mode = .plain
                case "\\": escaped = true
                default: current.append(character)
                }
            }
        }
        guard !escaped, mode == .plain else { return nil }
        if inWord {
            words.append(current)
        }
        return words
    }

    /// `argument` with `%s` replaced by `url` and `%%` by `%`, and whether a `%s` was found.
    private static func expand(_ argument: String, url: String) -> (String, Bool) {
        guard argument.contains("%") else { return (argument, false) }
        var result = ""
        var substituted = false
        var iterator = argument.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            switch iterator.next() {
            case "s":
                result += url
                substituted = true
            case "%":
                result.append("%")
            case let other?:
                result.append("%")
                result.append(other)
            case nil:
                result.append("%")
            }
        }
        return (result, substituted)
    }
}
