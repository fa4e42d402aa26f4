//! The fast path against GNU c++filt's text, construct by construct, and against cut or
//! corrupted names.

use super::demangle;

/// See `deep_nesting_is_declined_at_the_same_depth`.
const FIRST_DECLINED: usize = 191;

/// Expected texts are GNU c++filt 2.40's output for each name.
const CASES: &[(&str, &str)] = &[
    ("_ZN1AE", "A"),
    ("_Z3foo", "foo"),
    ("_Z1fIJEEviDpRKT_", "void f<>(int)"),
    ("_Z1fIJEEvDpRKT_i", "void f<>(, int)"),
    ("_Z1fIJEiEvDpRKT_T0_", "void f<, int>(, int)"),
    ("_Z1gIJEiEvv", "void g<, int>()"),
    ("_ZN4llvm11PassManagerINS_6ModuleENS_15AnalysisManagerIS1_JEEEJEE10isRequiredEv", "llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>::isRequired()"),
    ("_Z1fIKiEvRKT_", "void f<int const>(int const&)"),
    ("_Z1fIVKiEvRKT_", "void f<int const volatile>(int volatile const&)"),
    ("_Z1fIA3_iEvRKT_", "void f<int [3]>(int const (&) [3])"),
    ("_Z1fPFviEPA4_iM1AFvvEM1AKFivEM1AiRA2_A3_KcKPFvvE", "f(void (*)(int), int (*) [4], void (A::*)(), int (A::*)() const, int A::*, char const (&) [2][3], void (* const)())"),
    ("_ZZN4llvm3fooIiEEjvE1x", "llvm::foo<int>()::x"),
    ("_ZZN4llvm3fooIiEEjvENKUlvE0_clEv", "llvm::foo<int>()::{lambda()#2}::operator()() const"),
    ("_ZNSt8ios_base7failureB5cxx11C1EPKc", "std::ios_base::failure[abi:cxx11]::failure(char const*)"),
    ("_ZN12_GLOBAL__N_13fooEv.cold", "(anonymous namespace)::foo() [clone .cold]"),
    ("_ZN1A1fEv.isra.0.constprop.1", "A::f() [clone .isra.0] [clone .constprop.1]"),
    ("_Z1fILi8ELj8ELl8ELm8ELx8ELy8ELb1ELb0ELin3ELc65ELs2EEvv", "void f<8, 8u, 8l, 8ul, 8ll, 8ull, true, false, -3, (char)65, (short)2>()"),
    ("_Z1fIN1A1BELS1_3EEvv", "void f<A::B, (A::B)3>()"),
    ("_ZNSsC1ERKSs", "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string(std::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)"),
    ("_ZNKSt5ctypeIcE8do_widenEc", "std::ctype<char>::do_widen(char) const"),
    ("_ZTv0_n24_N4llvm1A1fEv", "virtual thunk to llvm::A::f()"),
    ("_ZTCN4llvm1AE0_NS_1BE", "construction vtable for llvm::B-in-llvm::A"),
    ("_ZGVZN1A1fEvE1x_0", "guard variable for A::f()::x"),
    ("_ZNK1A1fEv", "A::f() const"),
    ("_ZNVKR1A1fEv", "A::f() const volatile &"),
    ("_ZNO1A1fEv", "A::f() &&"),
    ("_ZGTtNKSt9exception4whatEv", "transaction clone for std::exception::what() const"),
    ("_ZN1AplERKS_", "A::operator+(A const&)"),
    ("_ZN1AnwEm", "A::operator new(unsigned long)"),
    ("_ZN1AltIiEEbv", "bool A::operator< <int>()"),
    ("_Z1fPVKrPi", "f(int* restrict const volatile*)"),
    ("_Z1fDnDaDiDs", "f(decltype(nullptr), auto, char32_t, char16_t)"),
    ("_ZNSt6vectorIiSaIiEE9push_backEOi", "std::vector<int, std::allocator<int> >::push_back(int&&)"),
    ("_Z1fIiEvPFT_vE", "void f<int>(int (*)())"),
    ("_ZTSPFvvE", "typeinfo name for void (*)()"),
    ("_ZN1AC2IJiEEEDpOT_", "A::A<int>(int&&)"),
    ("_ZZNSt9once_flag18_Prepare_executionC4IZSt9call_onceIRFvvEJEEvRS_OT_DpOT0_EUlvE_EERS6_ENUlvE_4_FUNEv", "std::once_flag::_Prepare_execution::_Prepare_execution<std::call_once<void (&)()>(std::once_flag&, void (&)())::{lambda()#1}>(void (&)())::{lambda()#1}::_FUN()"),
    ("_ZN4llvm2cl5applyINS0_3optIbLb0ENS0_6parserIbEEEEA14_cJNS0_4descEEEEvPT_RKT0_DpRKT1_", "void llvm::cl::apply<llvm::cl::opt<bool, false, llvm::cl::parser<bool> >, char [14], llvm::cl::desc>(llvm::cl::opt<bool, false, llvm::cl::parser<bool> >*, char const (&) [14], llvm::cl::desc const&)"),
    ("_ZN5clang6interp15ByteCodeEmitter6emitOpIJEEEbNS0_6OpcodeEDpRKT_RKNS0_10SourceInfoE", "bool clang::interp::ByteCodeEmitter::emitOp<>(clang::interp::Opcode, , clang::interp::SourceInfo const&)"),
];

#[test]
fn prints_what_cxxfilt_prints() {
    for (mangled, text) in CASES {
        assert_eq!(demangle(mangled).as_deref(), Some(*text), "{mangled}");
    }
}

#[test]
fn declines_what_it_does_not_cover() {
    // expressions, conversion operators, decltype, vendor qualifiers, and junk
    for name in [
        "_Z1fIiEDTplfp_fp_ET_",
        "_ZN1AcviEv",
        "_Z1fIiEvRAstT__i",
        "_Z1fPU3AS1i",
        "_Z",
        "_Z1",
        "_Z3fooS_",
        "_Z1fT_",
        "_Z1fv.Lfoo",
    ] {
        assert_eq!(demangle(name), None, "{name}");
    }
}

/// Every prefix of every case, and every case with one byte replaced, must come back
/// (with text or `None`) without a panic.
#[test]
fn never_panics_on_cut_or_corrupted_names() {
    let (mut declined, mut accepted) = (0, 0);
    for (mangled, want) in CASES {
        // The uncut name still demangles as the case says: the loop runs over real inputs.
        assert_eq!(demangle(mangled).as_deref(), Some(*want), "{mangled}");
        for cut in 0..=mangled.len() {
            let _ = demangle(&mangled[..cut]);
        }
        // An empty or `_Z`-only name is never a symbol.
        assert_eq!(demangle(&mangled[..0]), None);
        for at in 2..mangled.len() {
            for b in ["_", "E", "S", "T", "0", "9", "I", "J", "N", "Z", "\u{e9}"] {
                let mut s = mangled[..at].to_string();
                s.push_str(b);
                s.push_str(&mangled[at + 1..]);
                match demangle(&s) {
                    Some(_) => accepted += 1,
                    None => declined += 1,
                }
            }
        }
    }
    // Both answers occur: corruption is neither always accepted nor always refused.
    assert!(
        declined > 0 && accepted > 0,
        "{declined} declined, {accepted} accepted"
    );
}

/// Nesting near the depth limit: any shortcut in `print` or the parse must decline exactly
/// where the general path declines (measured at 2c2ad5d). Substitutions nest the printed text
/// deeper than the parse (`A<A<…A<int>…>>` from `S_IS<k>_E` at each step), so the chain meets
/// the print limit; the nested template arguments meet the parse limit.
#[test]
fn deep_nesting_is_declined_at_the_same_depth() {
    use crate::demangle::cap_tests::base36 as seq;
    let chain = |n: usize| {
        let mut name = String::from("_Z1f1AIiE");
        for j in 1..n {
            name.push_str(&format!("S_IS{}_E", seq(j - 1)));
        }
        name
    };
    let first_declined = (1..400).find(|&n| demangle(&chain(n)).is_none());
    eprintln!("first chain declined: {first_declined:?}");
    assert_eq!(first_declined, Some(FIRST_DECLINED));
    let nested = |k: usize| format!("_Z1f{}i{}", "1AI".repeat(k), "E".repeat(k));
    assert_eq!((1..400).find(|&k| demangle(&nested(k)).is_none()), Some(96));
}
