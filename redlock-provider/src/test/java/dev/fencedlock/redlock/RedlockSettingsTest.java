package dev.fencedlock.redlock;

import static dev.fencedlock.testkit.config.ConfigTesting.assertRejected;
import static dev.fencedlock.testkit.config.ConfigTesting.fromPairs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The redlock backend's keys, read through {@link LockConfig} as users write them. */
class RedlockSettingsTest {

    private static RedlockSettings redlock(LockConfig config) {
        return RedlockSettings.from(config.settings(RedlockLocks.BACKEND));
    }

    @Test
    void readsEveryKey() {
        LockConfig config = fromPairs(
                "fencedlock.backend", "redlock",
                "fencedlock.redlock.nodes", "redis://a:6380, rediss://user:secret@b:6381/2",
                "fencedlock.redlock.node-timeout", "75ms",
                "fencedlock.redlock.drift-factor", "0.02",
                "fencedlock.redlock.retry-delay", "150ms",
                "fencedlock.redlock.restart-quarantine", "1m");
        RedlockSettings settings = redlock(config);
        assertThat(settings.nodes()).hasSize(2);
        RedisNodeAddress second = settings.nodes().get(1);
        assertThat(second.tls()).isTrue();
        assertThat(second.user()).contains("user");
        assertThat(second.password()).contains("secret");
        assertThat(second.database()).isEqualTo(2);
        assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofMillis(75));
        assertThat(settings.driftFactor()).isEqualTo(0.02);
        assertThat(settings.retryDelay()).isEqualTo(Duration.ofMillis(150));
        assertThat(settings.restartQuarantine()).contains(Duration.ofMinutes(1));
        assertThat(config.toString()).doesNotContain("secret").contains("****");
        assertThat(settings.toString()).doesNotContain("secret");
    }

    @Test
    void theBuilderCoversTheSameKeys() {
        LockConfig config = LockConfig.builder()
                .backend("redlock")
                .set(RedlockSettings.NODES, List.of("redis://a:1", "redis://b:2"))
                .set(RedlockSettings.NODE_TIMEOUT, Duration.ofNanos(1_500_000))
                .set(RedlockSettings.RESTART_QUARANTINE, Duration.ofNanos(1))
                .build();
        RedlockSettings settings = redlock(config);
        assertThat(settings.nodes()).extracting(RedisNodeAddress::port).containsExactly(1, 2);
        assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofNanos(1_500_000));
        assertThat(settings.restartQuarantine()).contains(Duration.ofNanos(1));
    }

    @Test
    void defaultsMatchTheDocumentedTable() {
        RedlockSettings settings =
                redlock(LockConfig.builder().backend("redlock").build());
        assertThat(settings.nodes()).isEmpty();
        assertThat(settings.nodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(settings.driftFactor()).isEqualTo(0.01);
        assertThat(settings.retryDelay()).isEqualTo(Duration.ofMillis(200));
        assertThat(settings.restartQuarantine()).isEmpty();
        assertThat(settings.trustPersistentNodes()).isFalse();
        assertThat(settings.keys().prefix()).isEqualTo("fencedlock:");
    }

    @Test
    void aRestartQuarantineOfZeroTurnsItOff() {
        RedlockSettings settings =
                redlock(fromPairs("fencedlock.backend", "redlock", RedlockSettings.RESTART_QUARANTINE, "0s"));
        assertThat(settings.restartQuarantine()).contains(Duration.ZERO);
    }

    @Test
    void theKeyPrefixIsReadAndEveryBadOneIsRejectedNamingTheKey() {
        RedlockSettings settings =
                redlock(fromPairs("fencedlock.backend", "redlock", RedlockSettings.KEY_PREFIX, "orders:"));
        assertThat(settings.keys().lock("x")).isEqualTo("orders:{x}:lock");
        for (String bad : List.of("", "a\tb", "x".repeat(129), "a\u0000")) {
            String value = bad.translateEscapes();
            assertThatThrownBy(() -> RedlockKeys.withPrefix(value))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith(RedlockSettings.KEY_PREFIX + " has '" + value + "'");
        }
        assertThat(RedlockKeys.withPrefix("x".repeat(128)).prefix()).hasSize(128);
    }

    @Test
    void aMisspeltKeyIsRejectedWithTheBackendsKeysListed() {
        assertThatThrownBy(() -> fromPairs("fencedlock.backend", "redlock", "fencedlock.redlock.node-timout", "1s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'fencedlock.redlock.node-timout'")
                .hasMessageContaining(RedlockSettings.NODE_TIMEOUT);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.redlock.node-timeout|0ms|fencedlock.redlock.node-timeout must be positive, got 0s",
                "fencedlock.redlock.retry-delay|0s|fencedlock.redlock.retry-delay must be positive",
                "fencedlock.redlock.restart-quarantine|-1s|fencedlock.redlock.restart-quarantine has '-1s', which is not a duration",
                "fencedlock.redlock.key-prefix|my app:|fencedlock.redlock.key-prefix has 'my app:': it contains whitespace",
                "fencedlock.redlock.key-prefix|app{1}:|fencedlock.redlock.key-prefix has 'app{1}:': it contains a brace at index 3",
                "fencedlock.redlock.restart-quarantine|1000000d|longer than the longest supported duration",
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
                "fencedlock.redlock.nodes|redis://A:6379,redis://a:6379|lists a:6379 twice",
                "fencedlock.redlock.nodes|redis://a b:6379|malformed node URI",
                "fencedlock.redlock.persistent-nodes|yes|fencedlock.redlock.persistent-nodes has 'yes'; expected true or false",
                "fencedlock.redlock.sentinel.nodes|a:26379,a:26379|lists a:26379 twice",
                "fencedlock.redlock.sentinel.nodes|a:0|outside 1..65535",
                "fencedlock.redlock.sentinel.nodes|redis://a:26379/3|names a database",
                "fencedlock.redlock.sentinel.nodes|http://a:26379|must start with redis://",
                "fencedlock.redlock.wait-replicas|-1|has '-1'; expected a number of replicas, 0 or more",
                "fencedlock.redlock.wait-replicas|one|has 'one'",
            })
    void badValueNamesTheKeyAndTheValue(String key, String value, String expectedMessage) {
        assertRejected(key, value, expectedMessage);
    }

    @Test
    void oneServerUnderTwoNamesIsNotTwoMasters() {
        LockConfig config = fromPairs(
                "fencedlock.backend",
                "redlock",
                "fencedlock.redlock.nodes",
                "redis://localhost:7001,redis://127.0.0.1:7001,redis://127.0.0.1:7002");
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "redis://localhost:7001/0 and redis://127.0.0.1:7001/0, which are the same server")
                .hasMessageContaining(RedlockSettings.NODES);
    }

    @Test
    void malformedNodeUriNeverShowsThePassword() {
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "redlock", "fencedlock.redlock.nodes", "redis://app:hunter2@host:99999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://app:****@host:99999")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> fromPairs(
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
        assertThatThrownBy(() -> fromPairs("fencedlock.backend", "redlock", "fencedlock.redlock.nodes", uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.redlock.nodes")
                .hasMessageNotContaining(password);
        assertThatThrownBy(() ->
                        fromPairs("fencedlock.backend", "redlock", "fencedlock.redlock.nodes", "redis://ok:1,," + uri))
                .hasMessageNotContaining(password);
        assertThat(RedisNodeAddress.mask(uri)).doesNotContain(password);
    }

    @Test
    void theEnvironmentCarriesTheBackendsKeys() {
        LockConfig config = LockConfig.fromEnvironment(
                new Properties(),
                Map.of("FENCEDLOCK_BACKEND", "redlock", "FENCEDLOCK_REDLOCK_NODE_TIMEOUT", "80ms"),
                getClass().getClassLoader());
        assertThat(redlock(config).nodeTimeout()).isEqualTo(Duration.ofMillis(80));
        assertThatThrownBy(() -> LockConfig.fromEnvironment(
                        new Properties(),
                        Map.of("FENCEDLOCK_REDLOCK_NODE_TIMOUT", "80ms"),
                        getClass().getClassLoader()))
                .hasMessageContaining("FENCEDLOCK_REDLOCK_NODE_TIMOUT");
    }

    @Test
    void readsTheSentinelKeys() {
        LockConfig config = fromPairs(
                "fencedlock.backend", "redlock",
                "fencedlock.redlock.sentinel.master", "orders",
                "fencedlock.redlock.sentinel.nodes", "10.0.0.1:26379, rediss://sentinel:s3cret@10.0.0.2:26380",
                "fencedlock.redlock.sentinel.master-user", "app",
                "fencedlock.redlock.sentinel.master-password", "p@ss word");
        RedlockSettings settings = redlock(config);
        assertThat(settings.nodes()).isEmpty();
        RedlockSettings.Sentinel sentinel = settings.sentinel().orElseThrow();
        assertThat(sentinel.master()).isEqualTo("orders");
        assertThat(sentinel.sentinels()).extracting(RedisNodeAddress::port).containsExactly(26379, 26380);
        assertThat(sentinel.sentinels().get(0).tls()).isFalse();
        assertThat(sentinel.sentinels().get(1).password()).contains("s3cret");
        RedisNodeAddress dataNode = sentinel.dataNode("10.0.0.9", 6390);
        assertThat(dataNode.host()).isEqualTo("10.0.0.9");
        assertThat(dataNode.port()).isEqualTo(6390);
        assertThat(dataNode.user()).contains("app");
        assertThat(dataNode.password()).contains("p@ss word");
        assertThat(dataNode.tls()).as("as the first Sentinel").isFalse();
        assertThat(settings.toString()).doesNotContain("s3cret").doesNotContain("p@ss");
        assertThat(config.toString()).doesNotContain("s3cret").doesNotContain("p@ss");
    }

    @Test
    void sentinelModeAndIndependentNodesAreNotMixed() {
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "redlock",
                        "fencedlock.redlock.nodes", "redis://a:6379",
                        "fencedlock.redlock.sentinel.master", "orders",
                        "fencedlock.redlock.sentinel.nodes", "a:26379"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        RedlockSettings.NODES + " and " + RedlockSettings.SENTINEL_MASTER + " are both set")
                .hasMessageContaining("one mode at a time");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.redlock.nodes|redis://a:6379",
                "fencedlock.redlock.sentinel.master|orders",
                "fencedlock.redlock.sentinel.nodes|a:26379",
            })
    void clusterModeIsNotMixedWithAnotherModeAndNamesBothKeys(String otherKey, String otherValue) {
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend",
                        "redlock",
                        "fencedlock.redlock.cluster.nodes",
                        "c1:7000,c2:7001",
                        otherKey,
                        otherValue))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.CLUSTER_NODES + " and " + otherKey + " are both set")
                .hasMessageContaining("one mode at a time");
    }

    @Test
    void clusterSeedsAreReadAndABadOneIsRefusedByName() {
        RedlockSettings settings = redlock(fromPairs(
                "fencedlock.backend",
                "redlock",
                "fencedlock.redlock.cluster.nodes",
                " c1:7000 , rediss://u:pw@c2:7001"));
        assertThat(settings.clusterNodes()).hasSize(2);
        assertThat(settings.clusterNodes().get(0).port()).isEqualTo(7000);
        assertThat(settings.clusterNodes().get(1).tls()).isTrue();
        assertThat(settings.nodes()).isEmpty();
        assertThat(settings.toString()).doesNotContain("pw");
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "redlock", "fencedlock.redlock.cluster.nodes", "c1:7000,c1:7000"))
                .hasMessageContaining(RedlockSettings.CLUSTER_NODES + " lists c1:7000 twice");
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "redlock", "fencedlock.redlock.cluster.nodes", "redis://c1:7000/2"))
                .hasMessageContaining(RedlockSettings.CLUSTER_NODES + " entry")
                .hasMessageContaining("database");
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "redlock",
                        "fencedlock.redlock.cluster.nodes", "c1:7000",
                        "fencedlock.redlock.restart-quarantine", "30s"))
                .hasMessageContaining(
                        RedlockSettings.RESTART_QUARANTINE + " is '30s' but " + RedlockSettings.CLUSTER_NODES);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.redlock.sentinel.master|orders|fencedlock.redlock.sentinel.nodes is not",
                "fencedlock.redlock.sentinel.nodes|a:26379|fencedlock.redlock.sentinel.master is not",
                "fencedlock.redlock.sentinel.master-password|x|fencedlock.redlock.sentinel.master is not",
            })
    void aSentinelKeyWithoutItsPartnerFailsWhenTheClientIsCreated(String key, String value, String expected) {
        LockConfig config = fromPairs("fencedlock.backend", "redlock", key, value);
        assertThatThrownBy(() -> LockClient.create(config))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(expected);
    }
}
