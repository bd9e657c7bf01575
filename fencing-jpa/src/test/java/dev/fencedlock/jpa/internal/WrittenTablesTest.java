package dev.fencedlock.jpa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class WrittenTablesTest {

    @Test
    void findsTheTableOfEveryKindOfWrite() {
        assertThat(WrittenTables.of("insert into fenced_item (id) values (?)")).containsExactly("fenced_item");
        assertThat(WrittenTables.of("INSERT fenced_item VALUES (1)")).containsExactly("fenced_item");
        assertThat(WrittenTables.of("update fenced_item i1_0 set quantity=? where i1_0.id=?"))
                .containsExactly("fenced_item");
        assertThat(WrittenTables.of("delete from \"Fenced_Item\" where id=?")).containsExactly("fenced_item");
        assertThat(WrittenTables.of("delete i1_0 from test.`fenced_item` i1_0 where i1_0.id=?"))
                .containsExactly("fenced_item");
        assertThat(WrittenTables.of("merge into app.fenced_item using dual on (1=1)"))
                .containsExactly("fenced_item");
        assertThat(WrittenTables.of("replace into fenced_item values (1)")).containsExactly("fenced_item");
        assertThat(WrittenTables.of("truncate table fenced_item")).containsExactly("fenced_item");
        assertThat(WrittenTables.of("/* comment */\n-- line\n  update item_tag set tag=?"))
                .containsExactly("item_tag");
    }

    @Test
    void findsEveryTableWrittenInsideAWithStatement() {
        assertThat(WrittenTables.of("with x as (delete from item_tag where item_id=? returning *) "
                        + "update fenced_item set version=version+1"))
                .containsExactly("item_tag", "fenced_item");
    }

    @Test
    void readsAreNotWrites() {
        assertThat(WrittenTables.of("select * from fenced_item where id=? for update"))
                .isEmpty();
        assertThat(WrittenTables.of("select 'update fenced_item set x=1' from dual"))
                .isEmpty();
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
        assertThat(WrittenTables.isUpdate("delete from t")).isFalse();
    }
}
