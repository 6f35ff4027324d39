import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening socket on `127.0.0.1` and its connections.
final class EmulatorServer: Sendable {
    let channel: any Channel
    let port: Int
    private let connections: EmulatorConnections

    private init(channel: any Channel, port: Int, connections: EmulatorConnections) {
        self.channel = channel
        self.port = port
        self.connections = connections
    }

    /// Binds `127.0.0.1:port` (0: an ephemeral port) and serves each request with `respond`.
    static func start(
        port: Int, limits: MSALEmulator.Configuration.Limits,
        respond: @escaping @Sendable (EmulatorHTTPRequest) async -> EmulatorHTTPResponse
    ) async throws(MSALEmulatorError) -> EmulatorServer {
        guard (0...65535).contains(port) else { throw MSALEmulatorError(.bindFailed, "port \(port) is out of range") }
        let connections = EmulatorConnections(maximum: limits.maximumConnections)
        var decoderLimits = NIOHTTPDecoderLimitConfiguration()
        decoderLimits.maxHeaderFieldSize = limits.maximumHeaderBytes
        decoderLimits.maxHeaderListSize = limits.maximumHeaderBytes
        decoderLimits.maxHeaderFieldCount = 256
        let decoderConfiguration = decoderLimits
        let idle = TimeAmount.seconds(Int64(limits.idleTimeout))
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 128)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelInitializer { child in
                    guard connections.admit(child) else {
                        return child.close()
                    }
                    return child.eventLoop.makeCompletedFuture {
                        let sync = child.pipeline.syncOperations
                        try sync.addHandler(IdleStateHandler(readTimeout: idle))
                        try sync.configureHTTPServerPipeline(
                            withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: true,
                            withEncoderConfiguration: HTTPResponseEncoder.Configuration(),
                            withDecoderLimitConfiguration: decoderConfiguration)
                        try sync.addHandler(EmulatorHTTPHandler(limits: limits, respond: respond))
                    }
                }
                .bind(host: "127.0.0.1", port: port)
                .get()
        } catch {
            throw MSALEmulatorError(.bindFailed, "cannot listen on 127.0.0.1:\(port): \(error)")
        }
        guard let bound = channel.localAddress?.port else {
            try? await channel.close()
            throw MSALEmulatorError(.bindFailed, "the bound port is unknown")
        }
        return EmulatorServer(channel: channel, port: bound, connections: connections)
    }

    /// Stops listening and closes every connection.
    func shutdown() async {
        try? await channel.close()
        for connection in connections.closeAll() {
            try? await connection.close()
        }
    }
}
