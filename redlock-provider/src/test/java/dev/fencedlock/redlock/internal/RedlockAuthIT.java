package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import dev.fencedlock.redlock.RedlockKeys;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.testkit.junit.RedisServersExtension;
import dev.fencedlock.testkit.redis.RedisServerProcess;
import dev.fencedlock.testkit.redis.RedisServers;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/** Credentials and databases from node URIs, on three password-protected servers. */
class RedlockAuthIT {
    private static final String USER = "locks";
    private static final String USER_PASSWORD = "user-pw-7Hq2";
    private static final String DEFAULT_PASSWORD = "default-pw-9Zx4";
    private static final String WRONG_PASSWORD = "wrong-pw-3Kd8";

    @RegisterExtension
    static final RedisServersExtension redis = RedisServersExtension.nodes(
            3, server -> server.password(DEFAULT_PASSWORD).user(USER, USER_PASSWORD));

    @Test
    void anAclUserAndADatabaseFromTheUriAreUsed() throws Exception {
        RedisServers servers = redis.servers();
        List<String> uris = servers.all().stream()
                .map(server -> server.uri(USER, USER_PASSWORD) + "/3")
                .collect(Collectors.toList());
        String name = "auth:db3";
        try (TestClient client = TestClient.create(config(uris));
                Lease lease = client.lock(name).tryAcquire(Duration.ZERO).orElseThrow()) {
            for (RedisServerProcess server : servers.all()) {
                assertThat(server.commands(
                                List.of(List.of("SELECT", "3"), List.of("EXISTS", RedlockKeys.lockKey(name)))))
                        .as("lock key in database 3 of %s", server)
                        .isEqualTo(1L);
                assertThat(server.command("EXISTS", RedlockKeys.lockKey(name)))
                        .as("nothing in database 0")
                        .isEqualTo(0L);
            }
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void theDefaultUserWithAPasswordWorks() throws Exception {
        List<String> uris = redis.servers().all().stream()
                .map(server -> server.uri(null, DEFAULT_PASSWORD))
                .collect(Collectors.toList());
        try (TestClient client = TestClient.create(config(uris))) {
            client.lock("auth:default-user")
                    .tryAcquire(Duration.ZERO)
                    .orElseThrow()
                    .close();
        }
    }

    @Test
    void aWrongPasswordIsReportedPerNodeWithThePasswordMasked() throws Exception {
        RedisServers servers = redis.servers();
        List<String> uris = servers.all().stream()
                .map(server -> server.uri(USER, WRONG_PASSWORD))
                .collect(Collectors.toList());
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        root.addAppender(logs);
        try (TestClient client = TestClient.create(config(uris))) {
            assertThatThrownBy(() -> client.lock("auth:wrong").tryAcquire(Duration.ofMillis(300)))
                    .isInstanceOfSatisfying(LockUnavailableException.class, e -> {
                        assertThat(e.nodeFailures())
                                .extracting(NodeFailure::node)
                                .containsExactlyElementsOf(servers.all().stream()
                                        .map(server -> "redis://" + USER + ":****@127.0.0.1:" + server.port() + "/0")
                                        .toList());
                        assertThat(e).hasMessageContaining("WRONGPASS").hasMessageContaining("0 of 3 nodes answered");
                        assertThat(everythingPrinted(e)).doesNotContain(WRONG_PASSWORD);
                    });
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list)
                .extracting(ILoggingEvent::getFormattedMessage)
                .noneMatch(message -> message.contains(WRONG_PASSWORD));
    }

    private static LockConfig config(List<String> uris) {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, uris)
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .build();
    }

    private static String everythingPrinted(Throwable e) {
        StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        return text.toString();
    }
}
