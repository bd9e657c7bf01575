package dev.fencedlock.spring.contract;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import dev.fencedlock.spring.FencedTransactions;
import javax.sql.DataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The contract through the Spring starter: {@link FencedTransactions#run(Lease,
 * org.springframework.transaction.support.TransactionCallback)} (the path a {@code @Locked
 * @Transactional} call takes once it holds its lease) on a {@code DataSourceTransactionManager},
 * the body writing with {@link JdbcTemplate}; unfenced transactions through a plain {@link
 * TransactionTemplate}.
 */
abstract class SpringFencingContract extends FencedTransactionContract {
    private ConfigurableApplicationContext context;
    private FencedTransactions fencedTransactions;
    private TransactionTemplate transactions;
    private Tx jdbcTemplate;

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceTransactionManagerAutoConfiguration.class,
        JdbcTemplateAutoConfiguration.class,
        TransactionAutoConfiguration.class,
        FencedLockAutoConfiguration.class
    })
    static class Application {}

    /**
     * The starter runs the guard when the transaction begins, as a round trip of its own, so that a
     * stale holder's refusal comes before the method body runs.
     */
    @Override
    protected boolean pipelinesTheGuard() {
        return false;
    }

    /** The guard, and the session put back after the transaction manager's commit. */
    @Override
    protected int extraRoundTripsOnMariaDb() {
        return 2;
    }

    @Override
    protected void openAdapter(DataSource dataSource) {
        context = new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.main.banner-mode=off", "fencedlock.backend=local", "fencedlock.initialize-schema=never")
                .initializers(application -> ((GenericApplicationContext) application)
                        .registerBean(DataSource.class, () -> new DelegatingDataSource(dataSource)))
                .run();
        fencedTransactions = context.getBean(FencedTransactions.class);
        transactions = context.getBean(TransactionTemplate.class);
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbcTemplate = new Tx() {
            @Override
            public int update(String sql, long... parameters) {
                return jdbc.update(sql, boxed(parameters));
            }

            @Override
            public long queryLong(String sql, long... parameters) {
                return jdbc.queryForObject(sql, Long.class, boxed(parameters));
            }
        };
    }

    private static Object[] boxed(long... parameters) {
        Object[] boxed = new Object[parameters.length];
        for (int i = 0; i < parameters.length; i++) {
            boxed[i] = parameters[i];
        }
        return boxed;
    }

    @Override
    protected void closeAdapter() {
        if (context != null) {
            context.close();
        }
    }

    @Override
    protected <T> T fenced(Lease lease, Body<T> body) {
        return fencedTransactions.run(lease, status -> unchecked(body, jdbcTemplate));
    }

    @Override
    protected <T> T unfenced(Body<T> body) {
        return transactions.execute(status -> unchecked(body, jdbcTemplate));
    }
}
