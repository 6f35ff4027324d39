import Foundation

/// Turns a parsed fixture document into an ``MSALRecordedFixture``, rejecting anything the
/// format does not allow. Members whose names start with `_` are comments and are ignored.
struct FixtureDecoder {
    let label: String

    func failure(_ path: String, _ reason: String) -> MSALFailure {
        MSALFailure(.internal, internalCode: .internalErrorInvalidParameter, message: "\(label): \(path): \(reason)")
    }

    /// The members of the object at `path`, after checking that only `allowed` names (and `_` comments) occur.
    func object(_ value: MSALFixtureJSON, at path: String, allowed: Set<String>) throws -> MSALFixtureJSON {
        guard let members = value.members else { throw failure(path, "expected an object, found \(value.typeName)") }
        for member in members where !member.name.hasPrefix("_") && !allowed.contains(member.name) {
            throw failure(path, "unknown member \"\(member.name)\" (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        return value
    }

    func requiredString(_ object: MSALFixtureJSON, _ name: String, at path: String) throws -> String {
        guard let value = object[name] else { throw failure(path, "missing \"\(name)\"") }
        guard let string = value.stringValue else {
            throw failure("\(path).\(name)", "expected a string, found \(value.typeName)")
        }
        return string
    }

    func optionalString(_ object: MSALFixtureJSON, _ name: String, at path: String) throws -> String? {
        guard let value = object[name] else { return nil }
        guard let string = value.stringValue else {
            throw failure("\(path).\(name)", "expected a string, found \(value.typeName)")
        }
        return string
    }

    mutating func decodeFixture(_ document: MSALFixtureJSON) throws -> MSALRecordedFixture {
        let root = try object(
            document, at: "document",
            allowed: ["name", "description", "provenance", "interactions", "conformance"])
        let name = try requiredString(root, "name", at: "document")
        guard !name.isEmpty else { throw failure("name", "must not be empty") }
        let description = try requiredString(root, "description", at: "document")
        let provenance = try decodeProvenance(root["provenance"])
        guard let interactionsValue = root["interactions"] else { throw failure("document", "missing \"interactions\"") }
        guard let elements = interactionsValue.arrayValue else {
            throw failure("interactions", "expected an array, found \(interactionsValue.typeName)")
        }
        let interactions = try elements.enumerated().map { index, element in
            try decodeInteraction(element, at: "interactions[\(index)]")
        }
        var conformance: MSALFixtureJSON?
        if let value = root["conformance"] {
            guard value.members != nil else { throw failure("conformance", "expected an object, found \(value.typeName)") }
            conformance = value
        }
        return MSALRecordedFixture(
            name: name, description: description, provenance: provenance,
            interactions: interactions, conformance: conformance)
    }

    func decodeProvenance(_ value: MSALFixtureJSON?) throws -> [MSALRecordedFixture.Source] {
        guard let value else { return [] }
        if let text = value.stringValue { return [MSALRecordedFixture.Source(notes: text)] }
        guard let entries = value.arrayValue else {
            throw failure("provenance", "expected a string or an array, found \(value.typeName)")
        }
        return try entries.enumerated().map { index, entry in
            let path = "provenance[\(index)]"
            guard entry.members != nil else { throw failure(path, "expected an object, found \(entry.typeName)") }
            // Other members (blob, lines, symbol, …) are kept in the file but not decoded.
            let source = MSALRecordedFixture.Source(
                repo: try optionalString(entry, "repo", at: path),
                path: try optionalString(entry, "path", at: path),
                commit: try optionalString(entry, "commit", at: path),
                notes: try optionalString(entry, "notes", at: path))
            guard source.repo != nil || source.path != nil || source.notes != nil else {
                throw failure(path, "needs at least one of \"repo\", \"path\" or \"notes\"")
            }
            return source
        }
    }

    func decodeInteraction(_ value: MSALFixtureJSON, at path: String) throws -> MSALRecordedFixture.Interaction {
        let interaction = try object(value, at: path, allowed: ["request", "response", "repeatable"])
        guard let requestValue = interaction["request"] else { throw failure(path, "missing \"request\"") }
        guard let responseValue = interaction["response"] else { throw failure(path, "missing \"response\"") }
        var repeatable = false
        if let value = interaction["repeatable"] {
            guard let flag = value.boolValue else {
                throw failure("\(path).repeatable", "expected true or false, found \(value.typeName)")
            }
            repeatable = flag
        }
        return MSALRecordedFixture.Interaction(
            request: try decodeRequest(requestValue, at: "\(path).request"),
            response: try decodeResponse(responseValue, at: "\(path).response"),
            repeatable: repeatable)
    }

    func decodeRequest(_ value: MSALFixtureJSON, at path: String) throws -> MSALRecordedFixture.Request {
        let request = try object(value, at: path, allowed: ["method", "url", "headers", "form"])
        let method = try requiredString(request, "method", at: path)
        guard !method.isEmpty, method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw failure("\(path).method", "expected an upper-case method such as GET or POST, found \"\(method)\"")
        }
        let urlString = try requiredString(request, "url", at: path)
        let url = try decodeURL(urlString, at: "\(path).url")
        var headers = MSALHTTPHeaders()
        if let value = request["headers"] {
            guard let members = value.members else { throw failure("\(path).headers", "expected an object, found \(value.typeName)") }
            for member in members {
                try checkHeaderName(member.name, at: "\(path).headers")
                guard let string = member.value.stringValue else {
                    throw failure("\(path).headers.\(member.name)", "expected a string, found \(member.value.typeName)")
                }
                headers.add(name: member.name, value: string)
            }
        }
        var form: [String: String]?
        if let value = request["form"] {
            guard let members = value.members else { throw failure("\(path).form", "expected an object, found \(value.typeName)") }
            var parameters: [String: String] = [:]
            for member in members {
                guard let string = member.value.stringValue else {
                    throw failure("\(path).form.\(member.name)", "expected a string, found \(member.value.typeName)")
                }
                parameters[member.name] = string
            }
            form = parameters
        }
        return MSALRecordedFixture.Request(
            method: MSALHTTPRequest.Method(rawValue: method), url: url,
            headers: headers, form: form)
    }

    func decodeURL(_ string: String, at path: String) throws -> URL {
        guard let url = URL(string: string), let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = components.host, !host.isEmpty
        else {
            throw failure(path, "expected an absolute http or https URL with a host, found \"\(string)\"")
        }
        guard components.fragment == nil else { throw failure(path, "a recorded URL cannot have a fragment: \"\(string)\"") }
        guard components.user == nil, components.password == nil else {
            throw failure(path, "a recorded URL cannot have user information: \"\(string)\"")
        }
        return url
    }

    func checkHeaderName(_ name: String, at path: String) throws {
        // RFC 9110 token characters.
        let allowed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        guard !name.isEmpty, name.utf8.allSatisfy(allowed.contains) else {
            throw failure(path, "\"\(name)\" is not a valid header name")
        }
    }

    func decodeResponse(_ value: MSALFixtureJSON, at path: String) throws -> MSALRecordedFixture.Response {
        let response = try object(value, at: path, allowed: ["status", "headers", "body", "body_text"])
        guard let statusValue = response["status"] else { throw failure(path, "missing \"status\"") }
        guard let status = statusValue.intValue, (100...599).contains(status) else {
            throw failure("\(path).status", "expected an integer from 100 to 599, found \(statusValue)")
        }
        var headers = MSALHTTPHeaders()
        if let value = response["headers"] {
            guard let members = value.members else { throw failure("\(path).headers", "expected an object, found \(value.typeName)") }
            for member in members {
                try checkHeaderName(member.name, at: "\(path).headers")
                if let string = member.value.stringValue {
                    headers.add(name: member.name, value: string)
                } else if let values = member.value.arrayValue, !values.isEmpty, values.allSatisfy({ $0.stringValue != nil }) {
                    for value in values { headers.add(name: member.name, value: value.stringValue!) }
                } else {
                    throw failure(
                        "\(path).headers.\(member.name)",
                        "expected a string or a non-empty array of strings, found \(member.value.typeName)")
                }
            }
        }
        let body: MSALRecordedFixture.Body
        switch (response["body"], response["body_text"]) {
        case (.some, .some):
            throw failure(path, "give either \"body\" or \"body_text\", not both")
        case (.some(let json), nil):
            body = .json(json)
        case (nil, .some(let textValue)):
            guard let text = textValue.stringValue else {
                throw failure("\(path).body_text", "expected a string, found \(textValue.typeName)")
            }
            body = .text(text)
        case (nil, nil):
            body = .empty
        }
        return MSALRecordedFixture.Response(status: status, headers: headers, body: body)
    }
}
