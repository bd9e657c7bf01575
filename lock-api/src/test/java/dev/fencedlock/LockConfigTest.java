package dev.fencedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LockConfigTest {

    private static LockConfig fromMap(String... keyValues) {
        Properties properties = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            properties.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return LockConfig.fromProperties(properties);
    }

    @Test
    void readsEveryKeyFromProperties() {
        LockConfig config = fromMap(
                "fencedlock.backend", "redlock",
                "fencedlock.lease-time", "10s",
                "fencedlock.max-hold-time", "2m",
                "fencedlock.redlock.nodes", "redis://a:6380, rediss://user:secret@b:6381/2",
                "fencedlock.redlock.node-timeout", "75ms",
                "fencedlock.redlock.drift-factor", "0.02",
                "fencedlock.redlock.retry-delay", "150ms",
                "fencedlock.redlock.restart-quarantine", "1m",
                "fencedlock.zookeeper.connect", "zk1:2181,zk2:2181",
                "fencedlock.zookeeper.base-path", "/locks/app",
                "fencedlock.zookeeper.session-timeout", "20s",
                "unrelated.key", "ignored");
        assertThat(config.backend()).isEqualTo("redlock");
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(10));
        assertThat(config.maxHoldTime()).contains(Duration.ofMinutes(2));
        assertThat(config.redlockNodes()).hasSize(2);
        RedisNodeAddress second = config.redlockNodes().get(1);
        assertThat(second.tls()).isTrue();
        assertThat(second.user()).contains("user");
        assertThat(second.password()).contains("secret");
        assertThat(second.database()).isEqualTo(2);
        assertThat(config.redlockNodeTimeout()).isEqualTo(Duration.ofMillis(75));
        assertThat(config.redlockDriftFactor()).isEqualTo(0.02);
        assertThat(config.redlockRetryDelay()).isEqualTo(Duration.ofMillis(150));
        assertThat(config.redlockRestartQuarantine()).contains(Duration.ofMinutes(1));
        assertThat(config.zookeeperConnect()).contains("zk1:2181,zk2:2181");
        assertThat(config.zookeeperBasePath()).isEqualTo("/locks/app");
        assertThat(config.zookeeperSessionTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(config.toString()).doesNotContain("secret").contains("****");
    }

    @Test
    void defaultsMatchTheDocumentedTable() {
        LockConfig config = LockConfig.builder().backend("local").build();
        assertThat(config.leaseTime()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxHoldTime()).isEmpty();
        assertThat(config.redlockNodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(config.redlockDriftFactor()).isEqualTo(0.01);
        assertThat(config.redlockRetryDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.redlockRestartQuarantine()).isEmpty();
        assertThat(config.zookeeperBasePath()).isEqualTo("/fencedlock");
        assertThat(config.zookeeperSessionTimeout()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void missingBackendListsTheBackendsOnTheClasspath() {
        assertThatThrownBy(() -> fromMap("fencedlock.lease-time", "5s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend is required")
                .hasMessageContaining("[local]");
    }

    @Test
    void unknownBackendListsTheBackendsOnTheClasspath() {
        LockConfig config = fromMap("fencedlock.backend", "etcd");
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend 'etcd'")
                .hasMessageContaining("[local]");
    }

    @Test
    void blankBackendIsRejected() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "  "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.backend must not be blank");
    }

    @Test
    void unknownKeyIsReportedNotIgnored() {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", "fencedlock.lease-tme", "5s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencedlock.lease-tme'")
                .hasMessageContaining("fencedlock.lease-time");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.lease-time|0s|fencedlock.lease-time must be positive, got 0s",
                "fencedlock.lease-time|-5s|fencedlock.lease-time has '-5s', which is not a duration",
                "fencedlock.lease-time|30|fencedlock.lease-time has '30', which is not a duration",
                "fencedlock.lease-time|soon|fencedlock.lease-time has 'soon'",
                "fencedlock.lease-time|PT0S|fencedlock.lease-time must be positive, got 0s",
                "fencedlock.lease-time|PT-3S|fencedlock.lease-time must be positive, got -3s",
                "fencedlock.max-hold-time|0ms|fencedlock.max-hold-time must be positive, got 0s",
                "fencedlock.redlock.node-timeout|0ms|fencedlock.redlock.node-timeout must be positive, got 0s",
                "fencedlock.redlock.retry-delay|0s|fencedlock.redlock.retry-delay must be positive",
                "fencedlock.redlock.restart-quarantine|0m|fencedlock.redlock.restart-quarantine must be positive",
                "fencedlock.zookeeper.session-timeout|0s|fencedlock.zookeeper.session-timeout must be positive",
                "fencedlock.redlock.drift-factor|0.5|fencedlock.redlock.drift-factor must be in [0, 0.5), got 0.5",
                "fencedlock.redlock.drift-factor|-0.01|fencedlock.redlock.drift-factor must be in [0, 0.5), got -0.01",
                "fencedlock.redlock.drift-factor|NaN|fencedlock.redlock.drift-factor must be in [0, 0.5), got NaN",
                "fencedlock.redlock.drift-factor|one percent|fencedlock.redlock.drift-factor has 'one percent', which is not a number",
                "fencedlock.redlock.nodes|http://a:6379|must start with redis:// or rediss://",
                "fencedlock.redlock.nodes|redis://:6379|has no host",
                "fencedlock.redlock.nodes|redis://a:70000|port 70000 outside 1..65535",
                "fencedlock.redlock.nodes|redis://a:6379/db1|has database 'db1'",
                "fencedlock.redlock.nodes|redis://a:6379?timeout=1|must not have a query",
                "fencedlock.redlock.nodes|redis://a:6379,,redis://b:6379|has an empty entry",
                "fencedlock.redlock.nodes|redis://a:6379,redis://a:6379|lists a:6379 twice",
                "fencedlock.redlock.nodes|redis://a b:6379|malformed node URI",
                "fencedlock.zookeeper.connect|zk1:2181, zk2:2181|must not contain whitespace",
                "fencedlock.zookeeper.base-path|fencedlock|must be an absolute znode path",
                "fencedlock.zookeeper.base-path|/fencedlock/|must be an absolute znode path",
            })
    void badValueNamesTheKeyAndTheValue(String key, String value, String expectedMessage) {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "local", key, value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(expectedMessage)
                .hasMessageContaining(key);
    }

    @Test
    void malformedNodeUriNeverShowsThePassword() {
        assertThatThrownBy(() -> fromMap(
                        "fencedlock.backend", "redlock", "fencedlock.redlock.nodes", "redis://app:hunter2@host:99999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://app:****@host:99999")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> fromMap(
                        "fencedlock.backend", "redlock", "fencedlock.redlock.nodes", "redis://app:hunter2@ho st:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("hunter2");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "redis://:abc/def+ghi==@10.0.0.5:6379|abc/def+ghi==",
                "redis://app:p@ss@host:99999|p@ss",
                "redis://app:se#cret@host:1?x|se#cret",
                "redis://app:a:b%2Fc@ho st:1|a:b%2Fc",
                "rediss://secret-only@:6379|secret-only",
            })
    void passwordsWithAwkwardCharactersNeverAppearInMessages(String uri, String password) {
        assertThatThrownBy(() -> fromMap("fencedlock.backend", "redlock", "fencedlock.redlock.nodes", uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.redlock.nodes")
                .hasMessageNotContaining(password);
        assertThatThrownBy(() ->
                        fromMap("fencedlock.backend", "redlock", "fencedlock.redlock.nodes", "redis://ok:1,," + uri))
                .hasMessageNotContaining(password);
        assertThat(RedisNodeAddress.mask(uri)).doesNotContain(password);
    }

    @Test
    void builderRejectsBadValuesNamingTheKey() {
        LockConfig.Builder builder = LockConfig.builder();
        assertThatThrownBy(() -> builder.leaseTime(Duration.ZERO)).hasMessageContaining("fencedlock.lease-time");
        assertThatThrownBy(() -> builder.leaseTime(null)).hasMessageContaining("fencedlock.lease-time");
        assertThatThrownBy(() -> builder.redlockNodeTimeout(Duration.ofMillis(-1)))
                .hasMessageContaining("fencedlock.redlock.node-timeout");
        assertThatThrownBy(() -> builder.redlockDriftFactor(0.7))
                .hasMessageContaining("fencedlock.redlock.drift-factor");
        assertThatThrownBy(() -> builder.redlockNodes()).hasMessageContaining("fencedlock.redlock.nodes");
        assertThatThrownBy(() -> builder.zookeeperConnect("")).hasMessageContaining("fencedlock.zookeeper.connect");
        assertThatThrownBy(builder::build).hasMessageContaining("fencedlock.backend is required");
    }

    @Test
    void durationsAcceptEveryDocumentedUnit() {
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "500ms")
                        .leaseTime())
                .isEqualTo(Duration.ofMillis(500));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "2m")
                        .leaseTime())
                .isEqualTo(Duration.ofMinutes(2));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "1h")
                        .leaseTime())
                .isEqualTo(Duration.ofHours(1));
        assertThat(fromMap("fencedlock.backend", "local", "fencedlock.lease-time", "PT45S")
                        .leaseTime())
                .isEqualTo(Duration.ofSeconds(45));
    }

    @Test
    void environmentVariableNamesFollowTheKeys() {
        assertThat(LockConfig.environmentVariable("fencedlock.redlock.node-timeout"))
                .isEqualTo("FENCEDLOCK_REDLOCK_NODE_TIMEOUT");
        assertThat(LockConfig.fromMap(Map.of("fencedlock.backend", "LOCAL")).backend())
                .isEqualTo("local");
    }
}
