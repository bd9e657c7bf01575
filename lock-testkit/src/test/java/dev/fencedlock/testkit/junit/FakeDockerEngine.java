package dev.fencedlock.testkit.junit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A Unix socket that answers HTTP requests with a fixed reply (or not at all), standing in for a
 * Docker engine's API.
 */
final class FakeDockerEngine implements AutoCloseable {
    static final String PONG = "HTTP/1.1 200 OK\r\nApi-Version: 1.47\r\nContent-Length: 2\r\n\r\nOK";

    private final Path directory;
    private final Path socket;
    private final ServerSocketChannel server;

    /** @param reply what each connection gets after its request; null to read and never answer */
    FakeDockerEngine(String reply) {
        try {
            directory = Files.createTempDirectory("docker");
            socket = directory.resolve("docker.sock");
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(() -> serve(reply), "fake-docker");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String endpoint() {
        return "unix://" + socket;
    }

    private void serve(String reply) {
        while (server.isOpen()) {
            try (SocketChannel connection = server.accept()) {
                connection.read(ByteBuffer.allocate(4096));
                if (reply == null) {
                    connection.read(ByteBuffer.allocate(1)); // until the client gives up
                    continue;
                }
                connection.write(ByteBuffer.wrap(reply.getBytes(StandardCharsets.US_ASCII)));
            } catch (IOException e) {
                // closed
            }
        }
    }

    /** Stops answering; the socket file stays, as a dead engine's does. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
