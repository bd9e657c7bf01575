package dev.fencedlock.jdbcprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockConfig;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class JdbcLockSettingsTest {

    private static JdbcLockSettings read(Map<String, String> values) {
        LockConfig config = LockConfig.fromMap(values);
        return JdbcLockSettings.from(config.settings(JdbcLocks.BACKEND));
    }

    @Test
    void readsItsKeysThroughLockConfig() {
        JdbcLockSettings settings = read(Map.of(
                "fencedlock.backend",
                "jdbc",
                JdbcLockSettings.URL,
                " jdbc:postgresql://db:5432/app?password=secret ",
                JdbcLockSettings.USER,
                "app",
                JdbcLockSettings.PASSWORD,
                "secret",
                JdbcLockSettings.TABLE,
                "locks.fencedlock_lock",
                JdbcLockSettings.POLL_INTERVAL,
                "100ms",
                JdbcLockSettings.OPERATION_TIMEOUT,
                "1500ms",
                "spring.datasource.url",
                "jdbc:h2:mem:x"));
        assertThat(settings.url()).contains("jdbc:postgresql://db:5432/app?password=secret");
        assertThat(settings.table()).isEqualTo("locks.fencedlock_lock");
        assertThat(settings.pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(settings.operationTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(settings.toString()).doesNotContain("secret").contains("jdbc:postgresql://db:5432/app");
    }

    @Test
    void defaults() {
        JdbcLockSettings settings = read(Map.of("fencedlock.backend", "jdbc", JdbcLockSettings.URL, "jdbc:h2:mem:x"));
        assertThat(settings.table()).isEqualTo(JdbcLockSettings.DEFAULT_TABLE);
        assertThat(settings.pollInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(settings.operationTimeout())
                .as("the per-attempt timeout, the most an acquisition may run past its wait")
                .isEqualTo(Duration.ofSeconds(2))
                .isEqualTo(JdbcLockSettings.DEFAULT_OPERATION_TIMEOUT);
    }

    @Test
    void unknownKeyIsRejectedWithTheKnownOnesListed() {
        assertThatThrownBy(() -> LockConfig.fromMap(Map.of(
                        "fencedlock.backend",
                        "jdbc",
                        JdbcLockSettings.URL,
                        "jdbc:h2:mem:x",
                        "fencedlock.jdbc.pol-interval",
                        "1s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencedlock.jdbc.pol-interval")
                .hasMessageContaining(JdbcLockSettings.POLL_INTERVAL);
    }

    @Test
    void badValuesAreRejectedWhenTheConfigurationIsBuiltNamingTheKeyAndTheValue() {
        assertThatThrownBy(() -> LockConfig.builder().backend("jdbc").set(JdbcLockSettings.URL, "postgresql://db/app"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(JdbcLockSettings.URL)
                .hasMessageContaining("postgresql://db/app");
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.TABLE, "locks; drop table x"))
                .hasMessageContaining(JdbcLockSettings.TABLE)
                .hasMessageContaining("locks; drop table x");
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.TABLE, "a.b.c"))
                .hasMessageContaining("a.b.c");
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.POLL_INTERVAL, "0s"))
                .hasMessageContaining(JdbcLockSettings.POLL_INTERVAL);
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.OPERATION_TIMEOUT, "soon"))
                .hasMessageContaining(JdbcLockSettings.OPERATION_TIMEOUT)
                .hasMessageContaining("soon");
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.OPERATION_TIMEOUT, "30d"))
                .hasMessageContaining(JdbcLockSettings.OPERATION_TIMEOUT);
        assertThatThrownBy(() -> JdbcLockSettings.builder().operationTimeout(Duration.ofMillis(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(JdbcLockSettings.OPERATION_TIMEOUT)
                .hasMessageContaining("PT0.005S");
        assertThatThrownBy(() -> JdbcLockSettings.builder().operationTimeout(Duration.ofNanos(1_500_000_000L + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(JdbcLockSettings.OPERATION_TIMEOUT);
        assertThatThrownBy(() -> LockConfig.builder().set(JdbcLockSettings.USER, " "))
                .hasMessageContaining(JdbcLockSettings.USER);
    }

    @Test
    void aMissingUrlIsReportedWhenTheClientIsCreated() {
        assertThatThrownBy(() -> dev.fencedlock.LockClient.create(
                        LockConfig.builder().backend("jdbc").build()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(JdbcLockSettings.URL);
    }

    @Test
    void aUrlAndADataSourceExcludeEachOther() {
        LockConfig config = LockConfig.builder()
                .backend("jdbc")
                .set(JdbcLockSettings.URL, "jdbc:h2:mem:x")
                .build();
        assertThatThrownBy(() -> JdbcLocks.create(config, new org.h2.jdbcx.JdbcDataSource()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not both");
    }

    @Test
    void anUnsupportedDatabaseIsRejectedWhenTheClientIsCreated() {
        DataSource other = ProductNamedDataSource.named("Apache Derby");
        assertThatThrownBy(() -> JdbcLocks.create(
                                LockConfig.builder().backend("jdbc").build(), other)
                        .close())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Apache Derby");
    }

    @Test
    void aClientIsRefusedACommonConfigurationOfAnotherBackend() {
        JdbcLockSettings settings = JdbcLockSettings.builder()
                .dataSource(new org.h2.jdbcx.JdbcDataSource())
                .build();
        assertThatThrownBy(() ->
                        JdbcLocks.create(LockConfig.builder().backend("local").build(), settings))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.BACKEND + " must be 'jdbc'")
                .hasMessageContaining("'local'");
    }
}
