package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * {@code fencedlock.initialize-schema}: the fence table (and the jdbc backend's lock table) exists
 * before the first fenced transaction, with or without Flyway, without disturbing the application's
 * own Flyway; and is left alone where the mode says so.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FencedLockSchemaIT {
    /** The history table of fencedlock's own Flyway, as docs/spring.md names it. */
    private static final String FENCE_HISTORY = "fencedlock_schema_history";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FencedLockAutoConfiguration.class))
            .withPropertyValues("fencedlock.backend=local");

    private static String h2Url() {
        return "spring.datasource.url=jdbc:h2:mem:schema-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    /** A fenced transaction through the context's transaction manager; its fence row has its token. */
    private static void fencedWriteSucceeds(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        FencedTransactions transactions = context.getBean(FencedTransactions.class);
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        LockClient client = context.getBean(LockClient.class);
        try (Lease lease = client.lock("schema:first").acquire(Duration.ofSeconds(5))) {
            transactions.run(lease, status -> jdbc.queryForObject("select 1", Integer.class));
            assertThat(jdbc.queryForObject(
                            "select token from fencedlock_fence where lock_name = ?", Long.class, "schema:first"))
                    .isEqualTo(lease.token());
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void withoutFlywayAnEmbeddedDatabaseGetsTheFenceTableFromTheScripts() {
        runner.withClassLoader(new FilteredClassLoader(Flyway.class))
                .withPropertyValues(h2Url())
                .run(FencedLockSchemaIT::fencedWriteSucceeds);
    }

    @Test
    void withFlywayTheFenceTableHasAHistoryOfItsOwnAndTheApplicationsFlywayIsUndisturbed() {
        String url = h2Url();
        ApplicationContextRunner withFlyway = runner.withConfiguration(
                        AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(url, "spring.flyway.locations=classpath:db/spring-test");
        withFlyway.run(context -> {
            fencedWriteSucceeds(context);
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForList(
                            "select \"version\" from \"" + FENCE_HISTORY + "\" where \"success\" = true", String.class))
                    .contains("1");
            assertThat(jdbc.queryForList(
                            "select \"script\" from \"flyway_schema_history\" where \"type\" <> 'TABLE'", String.class))
                    .as("the application's history has only its own migrations")
                    .containsExactly("V2__inventory_and_orders.sql");
            assertThat(jdbc.queryForObject("select count(*) from inventory", Integer.class))
                    .isZero();
        });
        // the next start on the same database finds everything in place
        withFlyway.run(FencedLockSchemaIT::fencedWriteSucceeds);
    }

    @Test
    void aFenceTableCreatedBeforeByHandIsTakenAsVersionOne() {
        String url = h2Url();
        runner.withClassLoader(new FilteredClassLoader(Flyway.class))
                .withPropertyValues(url)
                .run(FencedLockSchemaIT::fencedWriteSucceeds);
        runner.withPropertyValues(url).run(context -> {
            fencedWriteSucceeds(context);
            assertThat(context.getBean(JdbcTemplate.class)
                            .queryForList(
                                    "select \"type\" from \"" + FENCE_HISTORY + "\" where \"type\" <> 'TABLE'",
                                    String.class))
                    .containsExactly("BASELINE");
        });
    }

    @Test
    void neverLeavesTheDatabaseAlone() {
        runner.withPropertyValues(h2Url(), "fencedlock.initialize-schema=never").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(tableExists(context.getBean(DataSource.class), "fencedlock_fence"))
                    .isFalse();
        });
    }

    @Test
    void embeddedLeavesAServerDatabaseAloneFailingTheStartAndAlwaysCreatesItThere() {
        try (TestDatabase database = TestDatabase.create(TestDatabase.Kind.POSTGRESQL)) {
            ApplicationContextRunner
                    onPostgres = // the context closes its data sources; the database's pool outlives both runs
                    runner.withBean(DataSource.class, () -> new DelegatingDataSource(database.dataSource()));
            onPostgres.run(context -> {
                assertThat(context)
                        .as(
                                "embedded is the default, PostgreSQL is not embedded, and the missing table fails the start")
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(FencedLockStartupException.class)
                        .hasMessageContaining("fencedlock_fence");
                assertThat(tableExists(database.dataSource(), "fencedlock_fence"))
                        .isFalse();
            });
            onPostgres
                    .withPropertyValues("fencedlock.initialize-schema=always")
                    .run(FencedLockSchemaIT::fencedWriteSucceeds);
        }
    }

    @Test
    void theJdbcBackendsLockTableIsCreatedInItsDatabase() {
        String locks = "jdbc:h2:mem:locks-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        runner.withPropertyValues(h2Url(), "fencedlock.backend=jdbc", "fencedlock.jdbc.url=" + locks)
                .run(context -> {
                    fencedWriteSucceeds(context);
                    try (Lease first = context.getBean(LockClient.class)
                            .lock("schema:jdbc")
                            .acquire(Duration.ofSeconds(5))) {
                        assertThat(first.backend()).isEqualTo("jdbc");
                    }
                });
        // without it, the first acquisition fails naming the missing table
        String bare = "jdbc:h2:mem:bare-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        runner.withPropertyValues(
                        h2Url(),
                        "fencedlock.backend=jdbc",
                        "fencedlock.jdbc.url=" + bare,
                        "fencedlock.initialize-schema=never")
                .run(context -> assertThatThrownBy(() -> context.getBean(LockClient.class)
                                .lock("schema:jdbc")
                                .acquire(Duration.ofSeconds(5)))
                        .hasMessageContaining("fencedlock_lock"));
    }

    private static boolean tableExists(DataSource dataSource, String table) {
        try {
            new JdbcTemplate(dataSource).queryForObject("select count(*) from " + table, Integer.class);
            return true;
        } catch (RuntimeException missing) {
            return false;
        }
    }
}
