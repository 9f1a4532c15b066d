"""`.h` is written in C, C++ and Objective-C alike: a header's own text decides which grammar
reads it (`indexing.detect.header_language`), and the user's `languages` globs still win.
Real headers; positions are 0-based lines and UTF-16 columns."""

from __future__ import annotations

import pytest
from extract_support import by_name, run, table

from indexing.detect import LANGUAGE_HEAD_CHARS, detect_language, header_language
from indexing.indexer import read_as
from indexing.records import Span, SymbolKind

K = SymbolKind

# react-native-device-info 15.0.2 (npm), ios/RNDeviceInfo/DeviceUID.h, whole file.
DEVICE_UID_H = """#import <Foundation/Foundation.h>

@interface DeviceUID : NSObject
+ (NSString *)syncUid;
+ (NSString *)uid;
@end
"""

# libinih-dev 55 (Debian), /usr/include/INIReader.h: its licence, guard and export macros
# (the class starts past the first kilobyte), then the class, shortened and wrapped.
INI_READER_H = """// Read an INI file into easy-to-access name/value pairs.

// SPDX-License-Identifier: BSD-3-Clause

// Copyright (C) 2009-2020, Ben Hoyt

// inih and INIReader are released under the New BSD license (see LICENSE.txt).
// Go to the project home page for more info:
//
// https://github.com/benhoyt/inih

#ifndef INIREADER_H
#define INIREADER_H

#include <map>
#include <string>

// Visibility symbols, required for Windows DLLs
#ifndef INI_API
#if defined _WIN32 || defined __CYGWIN__
#	ifdef INI_SHARED_LIB
#		ifdef INI_SHARED_LIB_BUILDING
#			define INI_API __declspec(dllexport)
#		else
#			define INI_API __declspec(dllimport)
#		endif
#	else
#		define INI_API
#	endif
#else
#	if defined(__GNUC__) && __GNUC__ >= 4
#		define INI_API __attribute__ ((visibility ("default")))
#	else
#		define INI_API
#	endif
#endif
#endif

// Read an INI file into easy-to-access name/value pairs. (Note that I've gone
// for simplicity here rather than speed, but it should be pretty decent.)
class INIReader
{
public:
    // Construct INIReader and parse given filename. See ini.h for more info
    // about the parsing.
    INI_API explicit INIReader(const std::string& filename);

    // Get an integer (long) value from INI file, returning default_value if
    // not found or not a valid integer (decimal "1234", "-1234", or hex "0x4d2").
    INI_API long GetInteger(const std::string& section, const std::string& name,
                    long default_value) const;

private:
    int _error;
};

#endif  // INIREADER_H
"""

# libinih-dev 55 (Debian), /usr/include/ini.h lines 1-23 and 77, and its end: a C header
# that says `extern "C"` to C++ callers.
INI_H = """/* inih -- simple .INI file parser

SPDX-License-Identifier: BSD-3-Clause

Copyright (C) 2009-2020, Ben Hoyt

inih is released under the New BSD license (see LICENSE.txt). Go to the project
home page for more info:

https://github.com/benhoyt/inih

*/

#ifndef INI_H
#define INI_H

/* Make this header file easier to include in C++ code */
#ifdef __cplusplus
extern "C" {
#endif

#include <stdio.h>
#include <stdbool.h>

INI_API int ini_parse(const char* filename, ini_handler handler, void* user);

#ifdef __cplusplus
}
#endif

#endif /* INI_H */
"""


def test_an_objective_c_header_is_read_as_objective_c() -> None:
    ex = run("ios/RNDeviceInfo/DeviceUID.h", DEVICE_UID_H)
    assert ex.lang == "objc"
    assert table(ex) == [
        ("DeviceUID", K.CLASS, None, "DeviceUID"),
        ("syncUid", K.METHOD, "DeviceUID", "DeviceUID.syncUid"),
        ("uid", K.METHOD, "DeviceUID", "DeviceUID.uid"),
    ]
    assert by_name(ex, "syncUid").selection == Span(3, 14, 3, 21)


def test_a_cpp_header_is_read_as_cpp_past_its_licence_and_macros() -> None:
    assert INI_READER_H.index("class INIReader") > 256  # past the old head
    ex = run("include/INIReader.h", INI_READER_H)
    assert ex.lang == "cpp"
    assert [s for s in table(ex) if s[1] != K.CONSTANT] == [
        ("INIReader", K.CLASS, None, "INIReader"),
        ("INIReader", K.CONSTRUCTOR, "INIReader", "INIReader.INIReader"),
        ("GetInteger", K.METHOD, "INIReader", "INIReader.GetInteger"),
    ]
    get = by_name(ex, "GetInteger")
    assert get.selection == Span(49, 17, 49, 27)
    assert get.doc.startswith("Get an integer (long) value from INI file")


def test_a_c_header_stays_c() -> None:
    ex = run("include/ini.h", INI_H)
    assert ex.lang == "c"
    assert table(ex)[-1] == ("ini_parse", K.FUNCTION, None, "ini_parse")


def test_the_indexer_reads_a_header_the_same_way() -> None:
    assert read_as("include/INIReader.h", INI_READER_H)[0] == "cpp"
    assert read_as("ios/DeviceUID.h", DEVICE_UID_H)[0] == "objc"
    assert read_as("include/ini.h", INI_H)[0] == "c"


@pytest.mark.parametrize(
    ("head", "lang"),
    [
        ("@protocol RNCSafeAreaProviding <NSObject>\n@end\n", "objc"),
        ("#import <React/RCTView.h>\nvoid f(void);\n", "objc"),
        ("@class NSString;\nint count(void);\n", "objc"),
        ("namespace fmt {\nint f();\n}\n", "cpp"),
        ("template <typename T>\nT max(T a, T b);\n", "cpp"),
        ("struct Point {\n  private:\n  int x;\n};\n", "cpp"),
        ("enum class Color { red, green };\n", "cpp"),
        ("std::string name();\n", "cpp"),
        ("class Widget;\n", "cpp"),
        ("struct point { int x, y; };\nint add(int a, int b);\n", "c"),
        ("", "c"),
        # Comments say anything: Doxygen has `@interface`, prose has "class".
        ("/**\n * @interface Queue\n * class of queues\n */\nvoid q_push(int);\n", "c"),
        ("// namespace-free C API; see template <T> in the C++ one\nint f(void);\n", "c"),
        # A C header's lines for C++ callers: `extern "C"`, `<cstdint>` (a Swift-made header).
        ('#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n', "c"),
        ("#if defined(__cplusplus)\n#include <cstdint>\n#else\n#include <stdint.h>\n#endif\n",
         "c"),
        # Objective-C goes first: an Objective-C++ header is read as its `.mm` file is.
        ("#import <Foundation/Foundation.h>\nnamespace rn {\nclass Bridge;\n}\n", "objc"),
    ],
)
def test_what_marks_a_header(head: str, lang: str) -> None:
    assert header_language(head) == lang
    assert detect_language("include/x.h", head) == lang


def test_only_the_head_is_read() -> None:
    late = "int f(void);\n" * (LANGUAGE_HEAD_CHARS // 13 + 1) + "class Late {};\n"
    assert read_as("late.h", late)[0] == "c"
    assert detect_language("x.H", "class X {};\n") == "cpp"  # any case of `.h`


def test_only_dot_h_is_sniffed() -> None:
    assert detect_language("src/ring.c", "class X {};\n") == "c"
    assert detect_language("src/x.hpp", "int f(void);\n") == "cpp"
    assert detect_language("src/x.m", "int f(void);\n") == "objc"


def test_the_users_globs_still_win() -> None:
    assert detect_language("ios/DeviceUID.h", DEVICE_UID_H, (("*.h", "c"),)) == "c"
    assert detect_language("include/INIReader.h", INI_READER_H, (("*.h", "objc"),)) == "objc"
    objc_only_under_ios = (("ios/*.h", "objc"),)
    assert detect_language("include/INIReader.h", INI_READER_H, objc_only_under_ios) == "cpp"
