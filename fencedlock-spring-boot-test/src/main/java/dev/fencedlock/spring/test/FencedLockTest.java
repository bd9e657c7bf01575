package dev.fencedlock.spring.test;

import dev.fencedlock.spring.FencedLockAutoConfiguration;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
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
@Import(LockFaults.class)
public @interface FencedLockTest {}
