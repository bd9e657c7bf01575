package dev.fencedlock.jpa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WrittenTablesTest {

    @Test
    void findsTheTableOfEveryKindOfWrite() {
        assertThat(WrittenTables.of("insert into fenced_item (id) values (?)")).contains("fenced_item");
        assertThat(WrittenTables.of("INSERT fenced_item VALUES (1)")).contains("fenced_item");
        assertThat(WrittenTables.of("update fenced_item i1_0 set quantity=? where i1_0.id=?"))
                .contains("fenced_item");
        assertThat(WrittenTables.of("delete from \"Fenced_Item\" where id=?")).contains("fenced_item");
        assertThat(WrittenTables.of("delete i1_0 from test.`fenced_item` i1_0 where i1_0.id=?"))
                .contains("fenced_item");
        assertThat(WrittenTables.of("merge into app.fenced_item using dual on (1=1)"))
                .contains("fenced_item");
        assertThat(WrittenTables.of("replace into fenced_item values (1)")).contains("fenced_item");
        assertThat(WrittenTables.of("truncate table fenced_item")).contains("fenced_item");
        assertThat(WrittenTables.of("/* comment */\n-- line\n  update item_tag set tag=?"))
                .contains("item_tag");
    }

    @Test
    void findsEveryTableWrittenInsideAWithStatement() {
        assertThat(WrittenTables.of("with x as (delete from item_tag where item_id=? returning *) "
                        + "update fenced_item set version=version+1"))
                .contains("item_tag", "fenced_item");
    }

    /** Statements whose table is not the first word after the keyword. */
    @Test
    void findsTheTableWhereverTheStatementNamesIt() {
        for (String sql : new String[] {
            "update /* c */ fenced_item set quantity = 0",
            "delete /* c */ from fenced_item",
            "update ignore fenced_item set quantity = 0",
            "update low_priority fenced_item set quantity = 0",
            "delete low_priority quick from fenced_item",
            "replace low_priority into fenced_item values (1)",
            "update note a join fenced_item f on f.id = a.id set f.quantity = 0",
            "delete f from note a join fenced_item f on f.id = a.id",
            "delete from only fenced_item",
            "explain analyze delete from fenced_item",
            "with x as (select 1) update fenced_item set quantity = 0",
            "update note a, fenced_item f set f.quantity = 0",
            "copy fenced_item from stdin",
            "load data infile '/tmp/x' into table fenced_item"
        }) {
            assertThat(WrittenTables.of(sql)).as(sql).contains("fenced_item");
        }
    }

    /**
     * MariaDB/MySQL run what is inside an executable comment, and dynamic SQL
     * whose text may be built at run time; each passed the check before with no lease.
     */
    @Test
    void readsExecutableCommentsAndCountsDynamicSqlAsWritingAnyTable() {
        for (String sql : new String[] {
            "/*!update fenced_item set quantity = 0*/",
            "/*M!100000 update fenced_item set quantity = 0*/",
            "/*!50000 update fenced_item set quantity = 0*/",
            "update /*!fenced_item*/ set quantity = 0",
            "update /*!50000 fenced_item*/ set quantity = 0",
            "update /*M!100000 fenced_item*/ set quantity = 0"
        }) {
            assertThat(WrittenTables.of(sql)).as(sql).contains("fenced_item");
        }
        for (String sql : new String[] {
            "execute immediate 'update fenced_item set quantity = 0'",
            "EXECUTE IMMEDIATE concat('update fenced', '_item set quantity = 0')",
            "prepare s from 'update fenced_item set quantity = 0'",
            "execute s",
            "/*!execute immediate 'update fenced_item set quantity = 0'*/"
        }) {
            assertThat(WrittenTables.of(sql)).as(sql).containsExactly(WrittenTables.ANY_TABLE);
        }
        assertThat(WrittenTables.of("select 1 /*!, 2*/ from dual")).isEmpty();
    }

    /** A version assignment inside a plain comment assigns nothing; inside an executable one it does. */
    @Test
    void aVersionAssignmentInACommentDoesNotCount() {
        assertThat(WrittenTables.assigns(
                        "update fenced_item set quantity = 0 /* , version = version + 1 */", "version"))
                .isFalse();
        assertThat(WrittenTables.assigns("update fenced_item set quantity = 0 /*!, version = version + 1*/", "version"))
                .isTrue();
    }

    /** An UPDATE inside WITH, or after a modifier, is an update of its table. */
    @Test
    void anUpdateAnywhereInTheStatementIsAnUpdateOfTheTablesBeforeItsSet() {
        assertThat(WrittenTables.isUpdateOf("with x as (select 1) update fenced_item set quantity = 0", "fenced_item"))
                .isTrue();
        assertThat(WrittenTables.isUpdateOf("update /* c */ ignore fenced_item set quantity = 0", "fenced_item"))
                .isTrue();
        assertThat(WrittenTables.isUpdateOf(
                        "update note a join fenced_item f on 1=1 set f.quantity = 0", "fenced_item"))
                .isTrue();
        assertThat(WrittenTables.isUpdateOf(
                        "insert into fenced_item values (1, 5) on conflict (id) do update set quantity = 5",
                        "fenced_item"))
                .isTrue();
        assertThat(WrittenTables.isUpdateOf("update note set body = (select max(sku) from fenced_item)", "fenced_item"))
                .as("a subquery after SET only reads the table")
                .isFalse();
        assertThat(WrittenTables.isUpdateOf("delete from fenced_item", "fenced_item"))
                .isFalse();
    }

    @Test
    void readsAreNotWrites() {
        assertThat(WrittenTables.of("select * from fenced_item where id=? for update"))
                .isEmpty();
        assertThat(WrittenTables.of("select 'update fenced_item set x=1' from dual"))
                .isEmpty();
        assertThat(WrittenTables.of("explain select * from fenced_item")).isEmpty();
        assertThat(WrittenTables.of("insert into note values ('update fenced_item')"))
                .doesNotContain("fenced_item");
        assertThat(WrittenTables.of("call do_something()")).isEmpty();
    }

    @Test
    void tellsWhetherAnUpdateAssignsAColumn() {
        assertThat(WrittenTables.assigns("update t set quantity=?,version=? where id=? and version=?", "version"))
                .isTrue();
        assertThat(WrittenTables.assigns("update t i1_0 set i1_0.version=i1_0.version+1 where i1_0.id=?", "version"))
                .isTrue();
        assertThat(WrittenTables.assigns("update t set quantity=0 where version=3", "version"))
                .isFalse();
        assertThat(WrittenTables.assigns(
                        "update t set quantity=(select max(q) from u where version=1) where version=3", "version"))
                .isFalse();
        assertThat(WrittenTables.assigns("update t set my_version=1 where id=?", "version"))
                .isFalse();
        assertThat(WrittenTables.isUpdate("/* c */ UPDATE t set a=1")).isTrue();
        assertThat(WrittenTables.isUpdate("with x as (select 1) update t set a=1"))
                .isTrue();
        assertThat(WrittenTables.isUpdate("delete from t")).isFalse();
    }

    /** Hibernate's soft delete assigns its deleted column and nothing else. */
    @Test
    void tellsAnUpdateThatAssignsOnlyOneColumn() {
        assertThat(WrittenTables.assignsOnly(
                        "update soft_item set deleted=true where id=? and fence=? and deleted=false and version=?",
                        "deleted"))
                .isTrue();
        assertThat(WrittenTables.assignsOnly("update soft_item s set s.`deleted` = 1 where s.id = 1", "deleted"))
                .isTrue();
        assertThat(WrittenTables.assignsOnly("update soft_item set deleted=true, quantity=0 where id=?", "deleted"))
                .isFalse();
        assertThat(WrittenTables.assignsOnly("update soft_item set quantity=0, deleted=true where id=?", "deleted"))
                .isFalse();
        assertThat(WrittenTables.assignsOnly(
                        "update soft_item set deleted=(select max(x) from t where a=1, b=2) where id=?", "deleted"))
                .isTrue();
        assertThat(WrittenTables.assignsOnly("update soft_item set quantity=0 where deleted=true", "deleted"))
                .isFalse();
    }
}
