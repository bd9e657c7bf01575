package dev.fencedlock.testkit.junit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Whether a Docker engine answers: asks its API for {@code GET /_ping} and expects {@code 200 OK}.
 * A socket file that exists but has no engine behind it, or an engine that does not answer in
 * time, does not count. Immutable and thread-safe.
 */
final class DockerEngine {
    /** Where Docker listens unless {@code DOCKER_HOST} says otherwise. */
    static final String DEFAULT_ENDPOINT = "unix:///var/run/docker.sock";

    private static final Duration PING_TIMEOUT = Duration.ofSeconds(3);

    private final URI endpoint;

    private DockerEngine(URI endpoint) {
        this.endpoint = endpoint;
    }

    /** The engine at {@code DOCKER_HOST}, else at {@link #DEFAULT_ENDPOINT}. */
    static DockerEngine fromEnvironment() {
        String host = System.getenv("DOCKER_HOST");
        return at(host == null || host.isBlank() ? DEFAULT_ENDPOINT : host.trim());
    }

    /**
     * The engine at {@code endpoint}: {@code unix:///path/to/docker.sock} or {@code tcp://host:port}.
     *
     * @throws IllegalArgumentException for another scheme or a malformed endpoint, naming it
     */
    static DockerEngine at(String endpoint) {
        URI uri;
        try {
            uri = URI.create(endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Docker endpoint must be unix:///path or tcp://host:port, got '" + endpoint + "'", e);
        }
        boolean unix = "unix".equals(uri.getScheme())
                && uri.getPath() != null
                && !uri.getPath().isEmpty();
        boolean tcp = "tcp".equals(uri.getScheme()) && uri.getHost() != null && uri.getPort() > 0;
        if (!unix && !tcp) {
            throw new IllegalArgumentException(
                    "Docker endpoint must be unix:///path or tcp://host:port, got '" + endpoint + "'");
        }
        return new DockerEngine(uri);
    }

    String endpoint() {
        return endpoint.toString();
    }

    /** Whether the engine answers its ping within 3 s. Never throws for an absent engine. */
    boolean answers() {
        CompletableFuture<Boolean> ping = CompletableFuture.supplyAsync(this::ping, runnable -> {
            Thread thread = new Thread(runnable, "docker-ping");
            thread.setDaemon(true);
            thread.start();
        });
        try {
            return ping.get(PING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            ping.cancel(true);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private boolean ping() {
        SocketAddress address;
        StandardProtocolFamily family;
        if ("unix".equals(endpoint.getScheme())) {
            address = UnixDomainSocketAddress.of(Path.of(endpoint.getPath()));
            family = StandardProtocolFamily.UNIX;
        } else {
            address = new InetSocketAddress(endpoint.getHost(), endpoint.getPort());
            family = address instanceof InetSocketAddress inet && inet.getAddress() instanceof java.net.Inet6Address
                    ? StandardProtocolFamily.INET6
                    : StandardProtocolFamily.INET;
        }
        try (SocketChannel channel = SocketChannel.open(family)) {
            channel.connect(address);
            channel.write(
                    ByteBuffer.wrap("GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream reply = new ByteArrayOutputStream();
            ByteBuffer buffer = ByteBuffer.allocate(1024);
            while (channel.read(buffer) >= 0 && reply.size() < 64 * 1024) {
                reply.write(buffer.array(), 0, buffer.position());
                buffer.clear();
            }
            String text = reply.toString(StandardCharsets.US_ASCII);
            return text.matches("(?s)HTTP/1\\.[01] 200 .*") && text.endsWith("\r\n\r\nOK");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "DockerEngine[" + endpoint + "]";
    }
}
