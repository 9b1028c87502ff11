import ArgumentParser
import Net

/// An HTTP method that `net` offers as a subcommand.
public protocol HTTPVerb: Sendable {
    /// The method sent.
    static var method: NetworkHttpMethod { get }
}

/// `net get`, `net post`… one generic command per method, so the verbs cannot drift apart.
public struct VerbCommand<Verb: HTTPVerb>: AsyncParsableCommand {
    /// The subcommand's name (the method in lower case) and help.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: Verb.method.rawValue.lowercased(),
            abstract: "Send a \(Verb.method.rawValue) request and print the response.")
    }

    @OptionGroup var options: RequestOptions

    /// Creates the command; ArgumentParser fills in its options.
    public init() {}

    /// The checks that depend on the verb (usage errors, status 2, before anything is sent).
    public func validate() throws {
        if Verb.method == .head && options.download != nil {
            throw ValidationError("a HEAD response has no body: --download would only empty the file")
        }
        if options.continueDownload && Verb.method != .get {
            throw ValidationError("--continue resumes a GET download, not a \(Verb.method.rawValue)")
        }
    }

    /// Sends the request (or prints it as curl) and sets the exit status from the response.
    public func run() async throws {
        var plan = try options.plan(method: Verb.method)
        let session = try options.session.map { try SessionFile.load($0).merging(plan.givenHeaders) }
        try session?.apply(to: &plan.request)
        if options.curl {
            try Output.write(CurlRendering.command(for: plan, connection: options.connection,
                                                   followsRedirects: !options.noFollow, retries: options.retry) + "\n")
            return
        }
        let jar = session.map { CookieJar(cookies: $0.cookies) }
        let exchange = Exchange(options: options, cookieJar: jar)
        let status: ExitStatus
        do {
            status = try await exchange.perform(plan)
        } catch let error as UsageError {
            throw error  // rejected before anything was sent: the session file stays as it was
        } catch {
            // The request's failure is what the user needs to see and sets the status; a session
            // that cannot be saved as well is said on stderr first.
            do { try saveSession(session, jar: jar) } catch let saving { Output.error("net: \(saving)\n") }
            throw error
        }
        guard status != .success else {
            try saveSession(session, jar: jar)
            return
        }
        // An error status keeps its exit status; a session that cannot be saved is said on stderr.
        do { try saveSession(session, jar: jar) } catch { Output.error("net: \(error)\n") }
        throw ExitCode(status.rawValue)
    }

    /// Writes the session back with the jar's cookies, whatever the outcome: cookies a redirect
    /// set before a failure are kept too.
    private func saveSession(_ session: SessionFile?, jar: CookieJar?) throws {
        guard var session, let path = options.session else { return }
        session.cookies = jar?.cookies ?? session.cookies
        try session.save(to: path)
    }
}

/// `GET`.
public enum GetVerb: HTTPVerb { public static var method: NetworkHttpMethod { .get } }
/// `POST`.
public enum PostVerb: HTTPVerb { public static var method: NetworkHttpMethod { .post } }
/// `PUT`.
public enum PutVerb: HTTPVerb { public static var method: NetworkHttpMethod { .put } }
/// `PATCH`.
public enum PatchVerb: HTTPVerb { public static var method: NetworkHttpMethod { .patch } }
/// `DELETE`.
public enum DeleteVerb: HTTPVerb { public static var method: NetworkHttpMethod { .delete } }
/// `HEAD`.
public enum HeadVerb: HTTPVerb { public static var method: NetworkHttpMethod { .head } }
/// `OPTIONS`.
public enum OptionsVerb: HTTPVerb { public static var method: NetworkHttpMethod { .options } }

/// `--curl`: the plan as a redacted curl command, with the TLS and proxy options in curl's
/// spelling, and what `net` does beyond the one request in curl's too: following redirects (`-L`,
/// at most 10, as `net`) unless `--no-follow`, and `--retry N`.
enum CurlRendering {
    static func command(for plan: RequestPlan, connection: ConnectionOptions = ConnectionOptions(),
                        followsRedirects: Bool = true, retries: Int = 0) throws -> String {
        do {
            let options = CurlOptions(followsRedirects: followsRedirects)
            var command = plan.request.curlCommand(options)
            if let parts = plan.multipartParts, let multipart = try plan.request.curlCommand(multipartForm: parts, options: options) {
                command = multipart
            }
            let behaviour = (followsRedirects ? ["--max-redirs", "10"] : []) + (retries > 0 ? ["--retry", String(retries)] : [])
            return CurlCommand(arguments: connection.curlArguments + behaviour + command.arguments,
                               standardInput: command.standardInput, note: command.note).shellCommand
        } catch let error as NetworkError {
            throw UsageError(error.description)
        }
    }
}
