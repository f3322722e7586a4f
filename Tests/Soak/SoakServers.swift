import CurlfireTestSupport
import Foundation

/// The servers the soak talks to: httpbin and nginx (scripts/test-servers.py) and the fault server
/// (scripts/fault-server.py), all on loopback and all stopped when this process exits.
struct SoakServers: Sendable {
    let httpbin: URL
    let nginx: URL
    let fault: URL

    private struct ServersJSON: Decodable {
        let httpbin: String
        let nginx_http: String?
    }

    /// Reads `serversJSON`, or starts the servers with this process as their owner.
    static func start(options: SoakOptions) throws -> SoakServers {
        let scripts = options.repository.appendingPathComponent("scripts")
        let data: Data
        if let path = options.serversJSON {
            guard let contents = FileManager.default.contents(atPath: path) else { throw SoakFailure("cannot read \(path)") }
            data = contents
        } else {
            let state = options.repository.appendingPathComponent(".testservers").path
            let result = try Subprocess.run(["python3", scripts.appendingPathComponent("test-servers.py").path, "start",
                                             "--state-dir", state, "--parent-pid", String(getpid()), "--nginx"])
            guard result.status == 0 else { throw SoakFailure("test-servers.py start failed (\(result.status)): \(result.text)") }
            data = result.output
        }
        let servers = try JSONDecoder().decode(ServersJSON.self, from: data)
        guard let httpbin = URL(string: servers.httpbin), let nginxText = servers.nginx_http, let nginx = URL(string: nginxText)
        else { throw SoakFailure("servers.json lacks httpbin or nginx_http") }
        return SoakServers(httpbin: httpbin, nginx: nginx, fault: try startFaultServer(scripts: scripts))
    }

    /// Starts fault-server.py (HTTP only) and reads its port. The server closes every inherited
    /// descriptor and exits when this process does (`--parent-pid`).
    private static func startFaultServer(scripts: URL) throws -> URL {
        var outputPipe: [Int32] = [0, 0]
        guard pipe(&outputPipe) == 0 else { throw SoakFailure("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, outputPipe[0])
        posix_spawn_file_actions_addclose(&actions, outputPipe[1])
        let arguments = ["/usr/bin/env", "python3", scripts.appendingPathComponent("fault-server.py").path,
                         "--parent-pid", String(getpid())]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &argv, environ)
        close(outputPipe[1])
        defer { close(outputPipe[0]) }
        guard spawned == 0 else { throw SoakFailure("posix_spawn fault-server.py failed: \(spawned)") }
        // Reap it whenever it exits (PID 1 here does not reap zombies).
        let child = pid
        Thread.detachNewThread { var status: Int32 = 0; _ = waitpid(child, &status, 0) }
        var line = Data()
        var buffer = [UInt8](repeating: 0, count: 256)
        while !line.contains(UInt8(ascii: "\n")) {
            let count = read(outputPipe[0], &buffer, buffer.count)
            if count <= 0 { throw SoakFailure("fault-server.py exited before printing its port") }
            line.append(contentsOf: buffer[0..<count])
        }
        guard let ports = try JSONSerialization.jsonObject(with: line) as? [String: Int], let port = ports["http"],
              let url = URL(string: "http://127.0.0.1:\(port)")
        else { throw SoakFailure("fault-server.py printed \(String(decoding: line, as: UTF8.self))") }
        return url
    }
}
