package dev.fencedlock.spring.receiver;

import dev.fencedlock.spring.FenceRefusalListener;
import dev.fencedlock.spring.FencedWriteRefusedException;
import dev.fencedlock.testkit.db.TestDatabase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * A service that receives the calls of lock holders: its {@code @FencedBy} endpoints write shipments
 * ({@code JdbcTemplate}) and parcels (JPA, fenced entities), fenced by the token the request
 * presents. With {@code receiver.test-database} ({@code H2}, {@code POSTGRESQL}) it makes a private
 * schema of its own; without, it uses {@code spring.datasource.*}, so that a second instance can run
 * on the first one's database as a restarted service would.
 */
@SpringBootApplication
public class ReceiverApplication {
    /** The properties every instance runs with, over {@code application.properties}. */
    public static final String PROPERTIES = "classpath:receiver-test.properties";

    @Bean(destroyMethod = "close")
    @ConditionalOnProperty("receiver.test-database")
    TestDatabase receiverDatabase(@Value("${receiver.test-database}") TestDatabase.Kind kind) {
        return TestDatabase.create(kind, "recv", 8);
    }

    @Bean
    @ConditionalOnProperty("receiver.test-database")
    DataSource dataSource(TestDatabase database) {
        return database.dataSource();
    }

    @Bean
    Refusals refusals() {
        return new Refusals();
    }

    /** The refusals the starter reported, in order. */
    public static final class Refusals implements FenceRefusalListener {
        private final List<FencedWriteRefusedException> seen = new CopyOnWriteArrayList<>();

        @Override
        public void refused(FencedWriteRefusedException refusal) {
            seen.add(refusal);
        }

        public List<FencedWriteRefusedException> seen() {
            return seen;
        }
    }
}
