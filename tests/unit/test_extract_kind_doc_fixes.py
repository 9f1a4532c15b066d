"""Kinds, ranges and docs that depend on what stands around a definition, on real code.
Positions are 0-based lines and UTF-16 columns."""

from __future__ import annotations

from extract_support import by_name, run, table

from indexing.records import Span, SymbolKind

K = SymbolKind

# ruby-thor 1.2.1 (Debian), lib/thor/actions.rb lines 8-31 and 96-110, closing `end`s added.
THOR_ACTIONS = '''class Thor
  module Actions
    attr_accessor :behavior

    def self.included(base) #:nodoc:
      super(base)
      base.extend ClassMethods
    end

    module ClassMethods
      # Hold source paths for one Thor instance. source_paths_for_search is the
      # method responsible to gather source_paths from this current class,
      # inherited paths and the source root.
      #
      def source_paths
        @_source_paths ||= []
      end

      # Stores and return the source root for this class
      def source_root(path = nil)
        @_source_root = path if path
        @_source_root ||= nil
      end

    end


    # Returns the root for this thor class (also aliased as destination root).
    #
    def destination_root
      @destination_stack.last
    end

    # Sets the root for this thor class. Relatives path are added to the
    # directory where the script was invoked and expanded.
    #
    def destination_root=(root)
      @destination_stack ||= []
      @destination_stack[0] = File.expand_path(root || "")
    end

  end
end
'''


def test_the_defs_of_a_ruby_module_are_methods() -> None:
    ex = run("lib/thor/actions.rb", THOR_ACTIONS)
    assert table(ex) == [
        ("Thor", K.CLASS, None, "Thor"),
        ("Actions", K.MODULE, "Thor", "Thor.Actions"),
        ("behavior", K.PROPERTY, "Actions", "Thor.Actions.behavior"),
        ("included", K.METHOD, "Actions", "Thor.Actions.included"),
        ("ClassMethods", K.MODULE, "Actions", "Thor.Actions.ClassMethods"),
        ("source_paths", K.METHOD, "ClassMethods", "Thor.Actions.ClassMethods.source_paths"),
        ("source_root", K.METHOD, "ClassMethods", "Thor.Actions.ClassMethods.source_root"),
        ("destination_root", K.METHOD, "Actions", "Thor.Actions.destination_root"),
        ("destination_root=", K.METHOD, "Actions", "Thor.Actions.destination_root="),
    ]
    root = by_name(ex, "destination_root")
    assert root.selection == Span(29, 8, 29, 24)
    assert root.doc == "Returns the root for this thor class (also aliased as destination root)."


# react-native-device-info 15.0.2 (npm), android/.../RNInstallReferrerClient.java lines
# 71-98, wrapped in its class.
REFERRER_CLIENT = '''package com.learnium.RNDeviceInfo;

public class RNInstallReferrerClient {

  private class InstallReferrerStateListenerProxy implements InvocationHandler {
    @Override
    public Object invoke(Object o, Method method, Object[] args) throws Throwable {
      String methodName = method.getName();
      try {
        if (methodName.equals("onInstallReferrerSetupFinished") && args != null) {
          int responseCode = (Integer) args[0];
          mainHandler.post(new Runnable() {
            @Override
            public void run() {
              onInstallReferrerSetupFinished(responseCode);
            }
          });
        } else if (methodName.equals("onInstallReferrerServiceDisconnected")) {
          mainHandler.post(new Runnable() {
            @Override
            public void run() {
              onInstallReferrerServiceDisconnected();
            }
          });
        }
      } catch (Exception e) {
        throw new RuntimeException("unexpected invocation exception: " + e.getMessage());
      }

      return null;
    }
  }
}
'''


def test_the_methods_of_a_java_anonymous_class_are_methods() -> None:
    ex = run("RNInstallReferrerClient.java", REFERRER_CLIENT)
    proxy = "RNInstallReferrerClient.InstallReferrerStateListenerProxy"
    assert table(ex) == [
        ("RNInstallReferrerClient", K.CLASS, None, "RNInstallReferrerClient"),
        ("InstallReferrerStateListenerProxy", K.CLASS, "RNInstallReferrerClient", proxy),
        ("invoke", K.METHOD, "InstallReferrerStateListenerProxy", f"{proxy}.invoke"),
        ("run", K.METHOD, "invoke", f"{proxy}.invoke.run"),
        ("run", K.METHOD, "invoke", f"{proxy}.invoke.run"),
    ]
    assert [s.selection for s in ex.symbols if s.name == "run"] == [
        Span(13, 24, 13, 27), Span(20, 24, 20, 27)]


def test_free_functions_stay_functions() -> None:
    """Only a type makes a function a method: not a module, not another function."""
    python = run("tools.py", "def outer():\n    def inner():\n        pass\n\n"
                             "class Tool:\n    def run(self):\n        pass\n")
    assert table(python) == [
        ("outer", K.FUNCTION, None, "outer"),
        ("inner", K.FUNCTION, "outer", "outer.inner"),
        ("Tool", K.CLASS, None, "Tool"),
        ("run", K.METHOD, "Tool", "Tool.run"),
    ]
    rust = run("src/lib.rs", "mod tests {\n    fn helper() {}\n}\n")
    assert table(rust) == [
        ("tests", K.MODULE, None, "tests"), ("helper", K.FUNCTION, "tests", "tests.helper")]


# erlang-src 25.2.3 (Debian), stdlib's proplists.erl lines 32 and 86-103: OTP's layout.
PROPLISTS = '''-module(proplists).


%% @doc Unfolds all occurrences of atoms in <code>ListIn</code> to tuples
%% <code>{Atom, true}</code>.
%%
%% @see compact/1

-spec unfold(ListIn) -> ListOut when
      ListIn :: [term()],
      ListOut :: [term()].

unfold([P | Ps]) ->
    if is_atom(P) ->
\t    [{P, true} | unfold(Ps)];
       true ->
\t    [P | unfold(Ps)]
    end;
unfold([]) ->
    [].
'''


def test_an_edoc_block_a_blank_line_above_the_spec_documents_the_function() -> None:
    ex = run("src/proplists.erl", PROPLISTS)
    unfold = by_name(ex, "unfold")
    assert unfold.doc == ("Unfolds all occurrences of atoms in <code>ListIn</code> to tuples\n"
                          "<code>{Atom, true}</code>.\n\n@see compact/1")
    assert unfold.range == Span(12, 0, 19, 7)
    own = [c for c in ex.chunks if c.context == "proplists.unfold"]
    assert [(c.start_line, c.end_line) for c in own] == [(3, 19)]  # doc, spec and clauses


# golang-golang-x-exp-dev (Debian), apidiff/testdata/exported_fields/ef.go, whole file.
EXPORTED_FIELDS = '''package exported_fields

// Used for testing exportedFields.
// Its exported fields are:
//
//\tA1 [1]int
//\tD bool
//\tE int
//\tF F
//\tS *S
type (
\tS struct {
\t\tint
\t\t*embed2
\t\tembed
\t\tE int // shadows embed.E
\t\talias
\t\tA1
\t\t*S
\t}

\tA1 [1]int

\tembed struct {
\t\tE string
\t}

\tembed2 struct {
\t\tembed3
\t\tF // shadows embed3.F
\t}
\tembed3 struct {
\t\tF bool
\t}
\talias = struct{ D bool }

\tF int
)
'''


def test_one_alias_among_the_types_of_a_go_block_keeps_its_own_range() -> None:
    ex = run("ef.go", EXPORTED_FIELDS)
    assert [(s.name, s.kind, s.range) for s in ex.symbols] == [
        ("S", K.STRUCT, Span(11, 1, 19, 2)),
        ("A1", K.TYPE_PARAMETER, Span(21, 1, 21, 10)),
        ("embed", K.STRUCT, Span(23, 1, 25, 2)),
        ("embed2", K.STRUCT, Span(27, 1, 30, 2)),
        ("embed3", K.STRUCT, Span(31, 1, 33, 2)),
        ("alias", K.TYPE_PARAMETER, Span(34, 1, 34, 25)),
        ("F", K.TYPE_PARAMETER, Span(36, 1, 36, 6)),
    ]
    assert by_name(ex, "alias").doc == ""  # the block's comment is not the alias's
    own = [(c.start_line, c.end_line) for c in ex.chunks if c.context == "exported_fields.alias"]
    assert own == [(34, 34)]


def test_a_lone_spec_still_takes_its_declaration() -> None:
    ex = run("t.go", "package t\n\n// Celsius is a temperature.\ntype Celsius = float64\n")
    assert by_name(ex, "Celsius").range == Span(3, 0, 3, 22)
    assert by_name(ex, "Celsius").doc == "Celsius is a temperature."


# librust-semver-dev 1.0.14 (Debian), src/lib.rs lines 436-457 (`impl VersionReq`), shortened.
SEMVER = '''impl VersionReq {
    /// A `VersionReq` with no constraint on the version numbers it matches.
    /// Equivalent to `VersionReq::parse("*").unwrap()`.
    #[cfg(not(no_const_vec_new))] // rustc <1.39
    pub const STAR: Self = VersionReq {
        comparators: Vec::new(),
    };

    /// Create `VersionReq` by parsing from string representation.
    pub fn parse(text: &str) -> Result<Self, Error> {
        VersionReq::from_str(text)
    }
}
'''


def test_a_comment_after_an_attribute_does_not_hide_the_doc_above_it() -> None:
    ex = run("src/lib.rs", SEMVER)
    star = by_name(ex, "STAR")
    assert (star.kind, star.container, star.selection) == (
        K.CONSTANT, "impl VersionReq", Span(4, 14, 4, 18))
    assert star.doc == ("A `VersionReq` with no constraint on the version numbers it matches.\n"
                        'Equivalent to `VersionReq::parse("*").unwrap()`.')
    assert by_name(ex, "parse").doc == (
        "Create `VersionReq` by parsing from string representation.")


def test_the_same_holds_for_a_dart_annotation() -> None:
    ex = run("lib/box.dart", "class Box {\n  /// Draws the box.\n"
                             "  @override // from Shape\n  void draw() {}\n}\n")
    draw = by_name(ex, "draw")
    assert (draw.kind, draw.selection, draw.doc) == (
        K.METHOD, Span(3, 7, 3, 11), "Draws the box.")


def test_a_comment_after_code_on_its_line_still_belongs_to_that_code() -> None:
    ex = run("src/lib.rs", "/// One.\npub const A: u8 = 1; // the first\n"
                           "pub const B: u8 = 2;\n")
    assert (by_name(ex, "A").doc, by_name(ex, "B").doc) == ("One.", "")


def test_a_bodiless_rust_fn_is_a_method_of_its_trait_and_a_function_of_an_extern_block() -> None:
    ex = run("src/ffi.rs", '''mod sys {
    extern "C" {
        fn getpid() -> i32;
    }
}

pub trait Reader {
    fn read(&mut self, buf: &mut [u8]) -> usize;
}
''')
    assert [(s.name, s.kind, s.container) for s in ex.symbols
            if s.name in ("getpid", "read")] == [
        ("getpid", K.FUNCTION, "sys"), ("read", K.METHOD, "Reader")]
