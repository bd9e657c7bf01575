package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.fencedlock.Lease;
import dev.fencedlock.LockConfig;
import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.redlock.RedlockSettings;
import dev.fencedlock.spi.MonotonicClock;
import dev.fencedlock.testkit.redis.RedisServers;
import dev.fencedlock.testkit.redis.RedisTls;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;

/**
 * {@code rediss://} nodes: three TLS-only servers with a throw-away certificate for 127.0.0.1.
 * Skipped where {@code openssl} or a TLS-enabled {@code redis-server} is missing.
 */
class RedlockTlsIT {
    private static RedisTls tls;
    private static RedisServers servers;

    @BeforeAll
    static void startTlsServers() {
        assumeTrue(RedisTls.available(), "openssl and a redis-server built with TLS are needed");
        tls = RedisTls.generate();
        servers = RedisServers.start(3, server -> server.tls(tls));
    }

    @AfterAll
    static void stopTlsServers() {
        if (servers != null) {
            servers.close();
        }
        if (tls != null) {
            tls.close();
        }
    }

    @Test
    void locksOverTlsWithTheCertificateAndHostVerified() throws Exception {
        assertThat(servers.uris()).allMatch(uri -> uri.startsWith("rediss://"));
        SslOptions trusting = SslOptions.builder()
                .truststore(tls.trustStore().toFile(), tls.trustStorePassword().toCharArray())
                .sslVerifyMode(SslVerifyMode.FULL)
                .build();
        try (TestClient client = TestClient.create(
                config(),
                MonotonicClock.SYSTEM,
                new RedlockProvider.Options(trusting, System::currentTimeMillis, false))) {
            long first;
            try (Lease lease = client.lock("tls:lock").tryAcquire(Duration.ZERO).orElseThrow()) {
                first = lease.token();
                assertThat(client.lock("tls:lock").tryAcquire(Duration.ZERO)).isEmpty();
            }
            try (Lease lease = client.lock("tls:lock").tryAcquire(Duration.ZERO).orElseThrow()) {
                assertThat(lease.token()).isGreaterThan(first);
            }
        }
    }

    @Test
    void anUntrustedCertificateMakesEveryNodeFail() throws Exception {
        try (TestClient client = TestClient.create(config())) {
            assertThatThrownBy(() -> client.lock("tls:untrusted").tryAcquire(Duration.ZERO))
                    .isInstanceOfSatisfying(
                            LockUnavailableException.class,
                            e -> assertThat(e.nodeFailures()).hasSize(3));
        }
    }

    private static LockConfig config() {
        return LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, servers.uris())
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofSeconds(2))
                .build();
    }
}
