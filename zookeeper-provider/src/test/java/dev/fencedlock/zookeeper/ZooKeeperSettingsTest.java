package dev.fencedlock.zookeeper;

import static dev.fencedlock.testkit.config.ConfigTesting.assertRejected;
import static dev.fencedlock.testkit.config.ConfigTesting.fromPairs;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import java.io.StringReader;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The zookeeper backend's keys, read through {@link LockConfig} as users write them. */
class ZooKeeperSettingsTest {

    private static ZooKeeperSettings zookeeper(LockConfig config) {
        return ZooKeeperSettings.from(config.settings(ZooKeeperLocks.BACKEND));
    }

    @Test
    void readsEveryKey() {
        ZooKeeperSettings settings = zookeeper(fromPairs(
                "fencedlock.backend", "zookeeper",
                "fencedlock.zookeeper.connect", "zk1:2181,zk2:2181/app",
                "fencedlock.zookeeper.base-path", "/locks/app",
                "fencedlock.zookeeper.session-timeout", "20s",
                "fencedlock.zookeeper.operation-timeout", "300ms",
                "fencedlock.zookeeper.token-retention", "2h"));
        assertThat(settings.operationTimeout()).isEqualTo(Duration.ofMillis(300));
        assertThat(settings.tokenRetention()).isEqualTo(Duration.ofHours(2));
        assertThat(settings.connect()).contains("zk1:2181,zk2:2181/app");
        assertThat(settings.basePath()).isEqualTo("/locks/app");
        assertThat(settings.sessionTimeout()).isEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void defaultsMatchTheDocumentedTable() {
        ZooKeeperSettings settings =
                zookeeper(LockConfig.builder().backend("zookeeper").build());
        assertThat(settings.connect()).isEmpty();
        assertThat(settings.basePath()).isEqualTo("/fencedlock");
        assertThat(settings.sessionTimeout()).isEqualTo(Duration.ofSeconds(15));
        assertThat(settings.operationTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(settings.tokenRetention()).isEqualTo(Duration.ofDays(1));
    }

    @Test
    void anOperationTimeoutNotBelowTheSessionTimeoutIsRejected() {
        assertThatThrownBy(() -> fromPairs(
                        "fencedlock.backend", "zookeeper",
                        "fencedlock.zookeeper.session-timeout", "2s",
                        "fencedlock.zookeeper.operation-timeout", "2s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "fencedlock.zookeeper.operation-timeout must be below fencedlock.zookeeper.session-timeout")
                .hasMessageContaining("got PT2S");
        assertThatThrownBy(() ->
                        fromPairs("fencedlock.backend", "zookeeper", "fencedlock.zookeeper.session-timeout", "500ms"))
                .as("the default operation timeout (1s) with a shorter session timeout")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "fencedlock.zookeeper.operation-timeout must be below fencedlock.zookeeper.session-timeout");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "fencedlock.zookeeper.session-timeout|0s|fencedlock.zookeeper.session-timeout must be positive",
                "fencedlock.zookeeper.session-timeout|30d|fencedlock.zookeeper.session-timeout must be between 1ms",
                "fencedlock.zookeeper.connect|zk1:2181, zk2:2181|must not be blank or contain whitespace",
                "fencedlock.zookeeper.connect|zk1:notaport|zk1:notaport",
                "fencedlock.zookeeper.connect|zk1:2181/app,zk2:2181|has the chroot before the last host",
                "fencedlock.zookeeper.connect|zk1:2181/app,zk2:2181/app|has the chroot before the last host",
                "fencedlock.zookeeper.base-path|fencedlock|must be an absolute znode path",
                "fencedlock.zookeeper.base-path|/fencedlock/|must be an absolute znode path",
                "fencedlock.zookeeper.base-path|/locks/./x|is not a valid znode path",
                "fencedlock.zookeeper.base-path|/zookeeper/locks|which the server reserves",
                "fencedlock.zookeeper.operation-timeout|0s|fencedlock.zookeeper.operation-timeout must be positive",
                "fencedlock.zookeeper.operation-timeout|PT0.0005S|fencedlock.zookeeper.operation-timeout must be at least 1ms",
                "fencedlock.zookeeper.operation-timeout|soon|fencedlock.zookeeper.operation-timeout",
                "fencedlock.zookeeper.token-retention|30s|fencedlock.zookeeper.token-retention must be at least",
                "fencedlock.zookeeper.token-retention|-1h|fencedlock.zookeeper.token-retention",
            })
    void badValueNamesTheKeyAndTheValue(String key, String value, String expectedMessage) {
        assertRejected(key, value, expectedMessage);
    }

    @Test
    void trailingSpacesInAPropertiesFileDoNotChangeTheBasePath() throws Exception {
        Properties file = new Properties();
        file.load(new StringReader("fencedlock.backend=zookeeper\n"
                + "fencedlock.zookeeper.base-path=/app/locks   \n"
                + "fencedlock.zookeeper.connect=zk1:2181/chroot \n"));
        ZooKeeperSettings settings = zookeeper(LockConfig.fromProperties(file));
        assertThat(settings.basePath()).isEqualTo("/app/locks");
        assertThat(settings.connect()).contains("zk1:2181/chroot");
    }
}
