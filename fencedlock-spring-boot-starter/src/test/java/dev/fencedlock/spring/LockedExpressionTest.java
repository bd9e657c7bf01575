package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.LockClient;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A lock-name expression that names a variable the call will not have fails the first call with
 * the fix, instead of locking {@code stock:null} for every argument. The class without parameter
 * names is compiled here, without {@code -parameters}, as a build that forgot the flag would.
 */
class LockedExpressionTest {
    private static final String SOURCE = """
            package dev.fencedlock.spring.nameless;

            public class Stock implements java.util.function.Function<String, String> {
                @dev.fencedlock.spring.Locked("'stock:' + #sku")
                public String apply(String sku) {
                    return dev.fencedlock.spring.CurrentLease.get().orElseThrow().lockName();
                }

                @dev.fencedlock.spring.Locked("'stock:' + #p0")
                public String byPosition(String sku) {
                    return dev.fencedlock.spring.CurrentLease.get().orElseThrow().lockName();
                }
            }
            """;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class, AopAutoConfiguration.class))
            .withPropertyValues("fencedlock.backend=local");

    @TempDir
    Path classes;

    @Test
    @SuppressWarnings("unchecked")
    void aParameterNameWithoutParameterNamesInTheClassFileFailsTheFirstCallWithTheFix() throws Exception {
        Class<?> stockClass = compileWithoutParameterNames();
        runner.withClassLoader(stockClass.getClassLoader())
                .withBean("stock", (Class<Object>) stockClass)
                .run(context -> {
                    Object stock = context.getBean("stock");
                    Function<String, String> take = (Function<String, String>) stock;
                    assertThatThrownBy(() -> take.apply("sku-1"))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("Stock.apply")
                            .hasMessageContaining("#sku")
                            .hasMessageContaining("-parameters")
                            .hasMessageContaining("#p0");
                    assertThat(context.getBean(LockClient.class)
                                    .lock("stock:null")
                                    .tryAcquire(java.time.Duration.ZERO))
                            .as("nothing was locked under the null name")
                            .hasValueSatisfying(lease -> lease.close());
                    // by position works without names: one lock per SKU
                    assertThat(stockClass.getMethod("byPosition", String.class).invoke(stock, "sku-1"))
                            .isEqualTo("stock:sku-1");
                    assertThat(stockClass.getMethod("byPosition", String.class).invoke(stock, "sku-2"))
                            .isEqualTo("stock:sku-2");
                });
    }

    @Test
    void aVariableTheMethodDoesNotHaveFailsTheFirstCallNamingItsParameters() {
        runner.withBean(Misspelt.class).run(context -> {
            Misspelt bean = context.getBean(Misspelt.class);
            assertThatThrownBy(() -> bean.take("sku-1", 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Misspelt.take")
                    .hasMessageContaining("#skew")
                    .hasMessageContaining("[sku, units]");
            assertThatThrownBy(() -> bean.third("sku-1"))
                    .hasMessageContaining("#p2")
                    .hasMessageContaining("1 parameter(s)");
            assertThat(bean.calls).isZero();
            // names the class file has still work, and so do #root and #this
            assertThat(bean.named("sku-7")).isEqualTo("stock:sku-7");
        });
    }

    static class Misspelt {
        int calls;

        @Locked("'stock:' + #skew")
        public void take(String sku, int units) {
            calls++;
        }

        @Locked("'stock:' + #p2")
        public void third(String sku) {
            calls++;
        }

        @Locked("'stock:' + #sku + (#root == null ? '' : '') + (#this == null ? '' : '')")
        public String named(String sku) {
            return CurrentLease.get().orElseThrow().lockName();
        }
    }

    private Class<?> compileWithoutParameterNames()
            throws IOException, URISyntaxException, ReflectiveOperationException {
        Path source = classes.resolve("src/dev/fencedlock/spring/nameless/Stock.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, SOURCE);
        Path out = Files.createDirectories(classes.resolve("out"));
        String starterClasses = Path.of(Locked.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        String apiClasses = Path.of(LockClient.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .toString();
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        List<String> arguments = new ArrayList<>(List.of(
                "-classpath",
                starterClasses + java.io.File.pathSeparator + apiClasses,
                "-d",
                out.toString(),
                source.toString()));
        assertThat(compiler.run(null, null, null, arguments.toArray(String[]::new)))
                .as("compiled without -parameters")
                .isZero();
        URLClassLoader loader =
                new URLClassLoader(new URL[] {out.toUri().toURL()}, getClass().getClassLoader());
        Class<?> stock = loader.loadClass("dev.fencedlock.spring.nameless.Stock");
        assertThat(stock.getMethod("apply", String.class).getParameters()[0].isNamePresent())
                .isFalse();
        return stock;
    }
}
