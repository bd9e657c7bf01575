package dev.fencedlock.spring.test;

import dev.fencedlock.LockClient;
import dev.fencedlock.jdbc.FenceTable;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.TestPropertySource;

/**
 * For the test of a {@code @Locked} service: the starter on the in-process {@code local} backend,
 * the fence table created on the test's embedded database (the starter's {@code
 * fencedlock.initialize-schema=embedded}), and a {@link LockFaults} bean to make a lease fail at a
 * chosen point. Put it beside {@code @SpringBootTest}, or beside a slice such as {@code
 * @DataJpaTest} or {@code @JdbcTest} (it imports the starter's auto-configuration, which slices
 * leave out):
 *
 * <pre>{@code
 * @SpringBootTest
 * @FencedLockTest
 * class StockServiceTest {
 *     @Autowired StockService stock;
 *     @Autowired LockFaults faults;
 *
 *     @Test
 *     void aSaleWhoseLeaseRanOutIsNotKept() {
 *         faults.leaseExpiresBeforeCommit("stock:sku-1");
 *         assertThatThrownBy(() -> stock.take("sku-1", 1)).isInstanceOf(FencedWriteRefusedException.class);
 *     }
 * }
 * }</pre>
 *
 * <p>It sets {@code fencedlock.backend=local} over the application's properties; a {@code
 * @DynamicPropertySource} of the test goes over it, e.g. for a real backend from {@code
 * LockBackendExtension} of {@code lock-testkit} (see docs/spring.md).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestPropertySource(properties = "fencedlock.backend=local")
@ImportAutoConfiguration(FencedLockAutoConfiguration.class)
@Import(FencedLockTest.Faults.class)
public @interface FencedLockTest {

    /** Registers {@link LockFaults}. */
    @Configuration(proxyBeanMethods = false)
    class Faults {
        @Bean
        static LockFaults fencedLockFaults(
                ObjectProvider<LockClient> client,
                ObjectProvider<DataSource> dataSource,
                ObjectProvider<FenceTable> table) {
            return new LockFaults(client, dataSource, table);
        }
    }
}
