package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.testkit.await.Await;
import dev.fencedlock.testkit.db.TestDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * On MariaDB, which has no protected tables, a {@code @Locked} method without a transaction cannot
 * write in autocommit: a holder stalled past its lease while a newer holder writes never lands its
 * write.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class UnfencedConnectionMariaDbTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FencedLockAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues("fencedlock.backend=local", "fencedlock.initialize-schema=always");

    @Test
    void staleWriteOfALockedMethodWithoutTransactionNeverLands() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            FencedTransactions transactions = context.getBean(FencedTransactions.class);
            Writer writer = context.getBean(Writer.class);
            jdbc.update("create table starter_counter (name varchar(64) primary key, amount bigint not null)");
            jdbc.update("insert into starter_counter values ('c', 1)");
            CountDownLatch newerWrote = new CountDownLatch(1);
            ExecutorService stale = Executors.newSingleThreadExecutor();
            try {
                Future<?> staleWrite = stale.submit(() -> {
                    writer.writeAfterLeaseRanOut(99, newerWrote);
                    return null;
                });
                transactions.run("starter:c", Duration.ofSeconds(30), status -> {
                    jdbc.update("update starter_counter set amount = 10 where name = 'c'");
                    return null;
                });
                newerWrote.countDown();
                assertThatThrownBy(() -> staleWrite.get(30, TimeUnit.SECONDS))
                        .rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("starter:c")
                        .hasMessageContaining("outside any transaction");
            } finally {
                stale.shutdownNow();
            }
            assertThat(jdbc.queryForObject("select amount from starter_counter where name = 'c'", Long.class))
                    .as("the newer holder's write stands")
                    .isEqualTo(10);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean(destroyMethod = "close")
        TestDatabase testDatabase() {
            return TestDatabase.create(TestDatabase.Kind.MARIADB, "starter", 4);
        }

        @Bean
        DataSource dataSource(TestDatabase database) {
            return database.dataSource();
        }

        @Bean
        Writer writer() {
            return new Writer();
        }
    }

    /** A locked method with no transaction of its own. */
    static class Writer {
        @Autowired
        JdbcTemplate jdbc;

        @Locked(value = "'starter:c'", leaseTime = "300ms")
        public void writeAfterLeaseRanOut(long value, CountDownLatch newerWrote) throws InterruptedException {
            var lease = CurrentLease.get().orElseThrow();
            Await.until("lease expired", Duration.ofSeconds(30), () -> !lease.isValid());
            newerWrote.await();
            jdbc.update("update starter_counter set amount = ? where name = 'c'", value);
        }
    }
}
