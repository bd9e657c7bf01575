package dev.fencedlock.testkit.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.testkit.junit.LockBackendExtension.Mode;
import dev.fencedlock.testkit.redis.RedisInfo;
import dev.fencedlock.testkit.zookeeper.ZooKeeperServers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension's servers answer at the settings it hands out, wherever it chose to run them. No
 * Docker engine runs on CI, so there this proves the local path; the lock clients themselves are
 * exercised from the modules that have the providers (see the examples module).
 */
class LockBackendExtensionIT {
    private static Mode expectedMode() {
        return LockBackendExtension.testcontainersPresent()
                        && DockerEngine.fromEnvironment().answers()
                        && !"never".equals(System.getProperty(LockBackendExtension.CONTAINERS_PROPERTY))
                ? Mode.CONTAINERS
                : Mode.LOCAL;
    }

    @Nested
    class RedisNodes {
        @RegisterExtension
        static final LockBackendExtension backend = LockBackendExtension.redlock(3);

        @Test
        void threeNodesAnswerAtTheirUrisAndHaveBeenUpForTheQuarantine() throws IOException {
            assertThat(backend.mode()).isEqualTo(expectedMode());
            Map<String, String> properties = backend.properties();
            assertThat(properties)
                    .containsEntry("fencedlock.backend", "redlock")
                    .containsEntry("fencedlock.redlock.restart-quarantine", "2s")
                    .containsEntry("fencedlock.lease-time", "2s");
            String[] nodes = properties.get("fencedlock.redlock.nodes").split(",");
            assertThat(nodes).hasSize(3).doesNotHaveDuplicates();
            for (String node : nodes) {
                URI uri = URI.create(node);
                String info = inlineCommand(uri.getHost(), uri.getPort(), "INFO server");
                assertThat(RedisInfo.uptimeSeconds(info))
                        .as(node)
                        .isGreaterThanOrEqualTo(RedisInfo.uptimeNeededSeconds(Duration.ofSeconds(2)));
            }
        }
    }

    @Nested
    class ZooKeeper {
        @RegisterExtension
        static final LockBackendExtension backend = LockBackendExtension.zookeeper();

        @Test
        void theServerServesAtItsConnectString() {
            assertThat(backend.mode()).isEqualTo(expectedMode());
            String connect = backend.properties().get("fencedlock.zookeeper.connect");
            assertThat(backend.properties()).containsEntry("fencedlock.backend", "zookeeper");
            String host = connect.substring(0, connect.lastIndexOf(':'));
            int port = Integer.parseInt(connect.substring(connect.lastIndexOf(':') + 1));
            assertThat(ZooKeeperServers.status(host, port)).contains("Mode: standalone");
        }
    }

    /** One Redis inline command and its whole bulk reply, without a client library. */
    private static String inlineCommand(String host, int port, String command) throws IOException {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder header = new StringBuilder();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                header.append((char) c);
            }
            int length = Integer.parseInt(header.substring(1).trim());
            return new String(in.readNBytes(length), StandardCharsets.UTF_8);
        }
    }
}
