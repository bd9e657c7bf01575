package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.testkit.db.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * The starter with a JPA transaction manager on MariaDB, where fencing-jpa's guard runs as its own
 * statement when the transaction begins: the starter does not run the guard again. Counted on the
 * server by a row trigger on the fence table that adds one to a session variable per write of a
 * row, read inside the transaction, on a pool of one connection.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class MariaDbJpaStarterIT {
    private static final String FENCE_WRITES = "select @fence_writes";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    HibernateJpaAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    FencedLockAutoConfiguration.class))
            .withUserConfiguration(App.class)
            .withPropertyValues(
                    "fencedlock.backend=local",
                    "fencedlock.initialize-schema=always",
                    "spring.jpa.hibernate.ddl-auto=none");

    @Test
    void aFencedJpaTransactionWritesTheFenceRowOnce() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
            FencedTransactions transactions = context.getBean(FencedTransactions.class);
            Writer writer = context.getBean(Writer.class);
            jdbc.update("create table jpa_counter (name varchar(64) primary key, amount bigint not null)");
            jdbc.update("insert into jpa_counter values ('c', 0)");
            // the lock's first transaction inserts its fence row; the later ones update it
            writer.add();
            jdbc.execute("create trigger count_fence_writes before update on fencedlock_fence"
                    + " for each row set @fence_writes = @fence_writes + 1");

            jdbc.execute("set @fence_writes = 0");
            long jpaFirst = transactions.run("jpa:c", Duration.ofSeconds(5), status -> {
                writer.selectOne();
                return jdbc.queryForObject(FENCE_WRITES, Long.class);
            });
            jdbc.execute("set @fence_writes = 0");
            long locked = writer.add();

            assertThat(jpaFirst).as("FencedTransactions").isEqualTo(1);
            assertThat(locked).as("@Locked @Transactional").isEqualTo(1);
            assertThat(jdbc.queryForObject("select amount from jpa_counter where name = 'c'", Long.class))
                    .isEqualTo(2);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class App {
        @Bean(destroyMethod = "close")
        TestDatabase testDatabase() {
            return TestDatabase.create(TestDatabase.Kind.MARIADB, "starterjpa", 1);
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

    /** A locked, transactional write through the entity manager; returns the fence writes counted in it. */
    static class Writer {
        @PersistenceContext
        EntityManager entityManager;

        /** A statement through the entity manager, in the caller's transaction. */
        public void selectOne() {
            entityManager.createNativeQuery("select 1").getSingleResult();
        }

        @Locked("'jpa:c'")
        @Transactional
        public long add() {
            entityManager
                    .createNativeQuery("update jpa_counter set amount = amount + 1 where name = 'c'")
                    .executeUpdate();
            Object writes = entityManager.createNativeQuery(FENCE_WRITES).getSingleResult();
            return writes == null ? -1 : ((Number) writes).longValue();
        }
    }
}
